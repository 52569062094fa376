import { EventEmitter } from 'node:events';
import { type Worker } from 'node:cluster';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newDecisionId } from '../edge/tracking/trackingToken.js';
import { PrimaryHub } from './primaryHub.js';
import { type Calls, CLUSTER_TAG, type Op, type ToWorker } from './protocol.js';

/**
 * The primary's replay guard for its workers (no Redis): what it answered as new is on disk once a
 * worker's `persistReplay` is answered, so a primary that dies right after (no stop, no checkpoint)
 * still refuses those events at its next start.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A worker as the hub sees it: messages in, replies out. */
function fakeWorker() {
  const worker = new EventEmitter() as EventEmitter & { send: (m: ToWorker) => void; isConnected: () => boolean };
  const replies = new Map<number, (m: ToWorker) => void>();
  worker.isConnected = () => true;
  worker.send = (m: ToWorker) => {
    if (m.kind === 'reply') replies.get(m.id)?.(m);
  };
  let next = 1;
  const call = <O extends Op>(op: O, args: Calls[O]['args']): Promise<Calls[O]['result']> =>
    new Promise((resolve, reject) => {
      const id = next++;
      replies.set(id, (m) =>
        m.kind === 'reply' && m.ok
          ? resolve(m.value as Calls[O]['result'])
          : reject(new Error(m.kind === 'reply' && !m.ok ? m.error : 'no reply')),
      );
      worker.emit('message', { tag: CLUSTER_TAG, kind: 'call', id, op, args });
    });
  return { worker: worker as unknown as Worker, call };
}

describe('PrimaryHub replay guard', () => {
  it('keeps what it answered as new on disk once a worker asked it to persist, through a crash of the primary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adplane-hub-'));
    dirs.push(dir);
    const kept = { counters: join(dir, 'delivery-counters.json'), replay: join(dir, 'replay-guard.bin') };
    const now = Date.now();
    const keys = [`${newDecisionId()}:impression`, `${newDecisionId()}:click`];
    const first = new PrimaryHub(null, kept);
    const a = fakeWorker();
    first.attach(a.worker);
    expect(await a.call('firstTimes', { keys, now })).toEqual([true, true]);
    expect(await a.call('persistReplay', {})).toBeNull();

    // the primary dies here: no saveState
    const next = new PrimaryHub(null, kept);
    const b = fakeWorker();
    next.attach(b.worker);
    expect(await b.call('firstTimes', { keys: [...keys, `${newDecisionId()}:impression`], now })).toEqual([
      false,
      false,
      true,
    ]);
    await next.saveState();
    await first.saveState();
  });
});
