import {
  type Exchange,
  type ExchangeReply,
  type Notices,
  type SharedCounters,
  type SpendRead,
} from '../delivery/sharedCounters.js';
import { CLUSTER_TAG } from './protocol.js';
import { type WorkerLink } from './workerLink.js';

/**
 * An exchange the primary has not answered within this is failed: the engine then serves within its
 * down margin. A primary that is gone fails every call at once (the IPC channel closes); a primary
 * that is only slow (a busy machine: its one core also hands out connections and writes stats) is
 * waited for up to a lease's lifetime, during which the worker serves on the leases it holds.
 */
const EXCHANGE_TIMEOUT_MS = 4_000;

/**
 * A worker's delivery counters without Redis: the shared side is the primary's one
 * `MemoryCounterStore`, reached by an asynchronous exchange over IPC (as with Redis: the request
 * path never waits, leases cover about a second of use). Notices go through the primary to the
 * other workers.
 */
export class IpcShared implements SharedCounters {
  // the counters live in memory (the primary's); health shows no Redis
  readonly engine = 'memory' as const;
  readonly sync = false;

  constructor(
    private readonly link: WorkerLink,
    private readonly pid: string,
    private readonly leaseTtlMs: number,
  ) {}

  exchange(x: Exchange): Promise<ExchangeReply> {
    return this.link.call('exchange', { pid: this.pid, leaseTtlMs: this.leaseTtlMs, x }, EXCHANGE_TIMEOUT_MS);
  }

  readSpend(keys: readonly string[]): Promise<SpendRead[]> {
    return this.link.call('readSpend', { keys: [...keys] }, 5_000);
  }

  publishNotices(notices: Notices): void {
    this.link.send({ tag: CLUSTER_TAG, kind: 'notices', notices });
  }

  onNotices(listener: (notices: Notices) => void): void {
    this.link.onNotices(listener);
  }

  async leave(): Promise<void> {
    await this.link.call('leave', { pid: this.pid }, EXCHANGE_TIMEOUT_MS).catch(() => {});
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
