import { type Notices } from '../delivery/sharedCounters.js';
import { type Calls, CLUSTER_TAG, isClusterMessage, type Op, type ToPrimary, type ToWorker } from './protocol.js';

/**
 * A worker's side of the IPC channel to the primary: calls answered by the primary (a call the
 * primary does not answer within its timeout fails, so the delivery counters treat it like Redis
 * down), and the notices the primary relays from the other workers.
 */
export class WorkerLink {
  private next = 1;
  private readonly waiting = new Map<
    number,
    { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout | null }
  >();
  private readonly noticeListeners: ((n: Notices) => void)[] = [];
  private readonly configListeners: ((version: number) => void)[] = [];

  constructor(private readonly proc: NodeJS.Process = process) {
    if (!proc.send) throw new Error('WorkerLink: this process has no IPC channel (it is not a cluster worker)');
    proc.on('message', (m: unknown) => {
      if (!isClusterMessage<ToWorker>(m)) return;
      if (m.kind === 'reply') {
        const w = this.waiting.get(m.id);
        if (!w) return;
        this.waiting.delete(m.id);
        if (w.timer) clearTimeout(w.timer);
        if (m.ok) w.resolve(m.value);
        else w.reject(new Error(m.error));
      } else if (m.kind === 'notices') for (const l of this.noticeListeners) l(m.notices);
      else for (const l of this.configListeners) l(m.version);
    });
    // the primary went away: nothing will answer
    proc.on('disconnect', () => {
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        if (w.timer) clearTimeout(w.timer);
        w.reject(new Error('the cluster primary is gone'));
      }
    });
  }

  /** `timeoutMs` 0: wait as long as it takes (stats reads and writes). */
  call<O extends Op>(op: O, args: Calls[O]['args'], timeoutMs: number): Promise<Calls[O]['result']> {
    return new Promise((resolve, reject) => {
      if (!this.proc.connected) return reject(new Error('the cluster primary is gone'));
      const id = this.next++;
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.waiting.delete(id);
              reject(new Error(`the cluster primary did not answer '${op}' within ${timeoutMs} ms`));
            }, timeoutMs)
          : null;
      timer?.unref();
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.send({ tag: CLUSTER_TAG, kind: 'call', id, op, args });
    });
  }

  send(message: ToPrimary): void {
    if (!this.proc.connected) return;
    this.proc.send!(message, undefined, undefined, (error: Error | null) => {
      if (!error || message.kind !== 'call') return;
      const w = this.waiting.get(message.id);
      if (!w) return;
      this.waiting.delete(message.id);
      if (w.timer) clearTimeout(w.timer);
      w.reject(error);
    });
  }

  onNotices(listener: (n: Notices) => void): void {
    this.noticeListeners.push(listener);
  }

  onConfig(listener: (version: number) => void): void {
    this.configListeners.push(listener);
  }
}
