import { describe, expect, it } from 'vitest';
import { periodicPass } from './periodicPass.js';

/** A pass the test lets end: each call of the pass waits until `finish()` ends the oldest one. */
function heldPasses() {
  const waiting: (() => void)[] = [];
  let started = 0;
  let ended = 0;
  const pass = () =>
    new Promise<number>((resolve) => {
      const n = ++started;
      waiting.push(() => {
        ended++;
        resolve(n);
      });
    });
  return {
    pass,
    finish: () => waiting.shift()?.(),
    get started() {
      return started;
    },
    get ended() {
      return ended;
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('periodicPass', () => {
  it('runs one pass at a time; calls during a pass share one more pass after it', async () => {
    const held = heldPasses();
    const job = periodicPass(held.pass, 0, () => {});
    const first = job.run();
    const second = job.run();
    const third = job.run();
    expect(second).toBe(third);
    await flush();
    expect(held.started).toBe(1);
    held.finish();
    expect(await first).toBe(1);
    await flush();
    expect(held.started).toBe(2);
    held.finish();
    expect(await second).toBe(2);
    expect(held.started).toBe(2);
  });

  it('a failed pass fails its callers and the next pass still runs', async () => {
    let calls = 0;
    const job = periodicPass(
      async () => {
        calls++;
        if (calls === 1) throw new Error('store down');
        return calls;
      },
      0,
      () => {},
    );
    const failing = job.run();
    const after = job.run();
    await expect(failing).rejects.toThrow('store down');
    expect(await after).toBe(2);
  });

  it('start runs a pass at once, resolving when it ended, and tells onError of a failed one; stop waits for the pass under way', async () => {
    const errors: unknown[] = [];
    const held = heldPasses();
    let fail = true;
    const job = periodicPass(
      () => (fail ? Promise.reject(new Error('no mail server')) : held.pass()),
      -1,
      (e) => errors.push(e),
    );
    await job.start(3_600_000);
    expect(errors).toHaveLength(1);
    fail = false;
    const under = job.run();
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    held.finish();
    await stopping;
    expect(await under).toBe(1);
    expect(await job.run()).toBe(-1);
    expect(held.started).toBe(1);
  });
});
