import { describe, expect, it } from 'vitest';
import { ReplayGuard, SharedReplayGuard } from './replayGuard.js';

const quiet = () => {
  const lines: string[] = [];
  return { lines, log: { warn: (_o: object, m: string) => lines.push(`warn ${m}`), info: (_o: object, m: string) => lines.push(`info ${m}`) } };
};

describe('impression replay guard', () => {
  it('counts an id once within the lifetime, again after it', () => {
    const guard = new ReplayGuard(2);
    const t = Date.UTC(2026, 0, 1);
    expect(guard.firstTime('a:impression', t)).toBe(true);
    expect(guard.firstTime('a:impression', t + 3_600_000)).toBe(false);
    // an older generation is dropped when a newer one starts
    expect(guard.firstTime('b:impression', t + 3 * 3_600_000)).toBe(true);
    expect(guard.firstTime('a:impression', t + 3 * 3_600_000)).toBe(true);
  });

  it('asks the shared memory once per turn for the ids this process has not seen, and believes it', async () => {
    const asked: string[][] = [];
    const sharedSeen = new Set(['elsewhere:impression']);
    const { log } = quiet();
    const guard = new SharedReplayGuard(async (ids) => {
      asked.push(ids);
      return ids.map((id) => (sharedSeen.has(id) ? false : (sharedSeen.add(id), true)));
    }, log);
    const now = Date.now();
    const answers = await Promise.all([guard.firstTime('a:impression', now), guard.firstTime('elsewhere:impression', now), guard.firstTime('b:start', now)]);
    expect(answers).toEqual([true, false, true]);
    expect(asked).toEqual([['a:impression', 'elsewhere:impression', 'b:start']]);
    // seen here already: no question
    expect(guard.firstTime('a:impression', now)).toBe(false);
    expect(asked).toHaveLength(1);
  });

  it('drains: every event asked about is answered and its count done before the final flush', async () => {
    const { log } = quiet();
    const guard = new SharedReplayGuard((ids) => new Promise((resolve) => setTimeout(() => resolve(ids.map(() => true)), 30)), log);
    const counted: string[] = [];
    const now = Date.now();
    for (const id of ['a:impression', 'b:start']) {
      const first = guard.firstTime(id, now);
      // as /ev does: the count follows the answer
      if (first instanceof Promise) void first.then((yes) => yes && counted.push(id));
    }
    // asked in the same turn, before the batch went out: drain sends it and waits for the answer
    await guard.drain();
    expect(counted).toEqual(['a:impression', 'b:start']);
    await guard.drain(); // nothing pending: returns
  });

  it('counts on its own guard while the shared memory is unreachable, logging once per outage', async () => {
    let up = false;
    const { lines, log } = quiet();
    const guard = new SharedReplayGuard(async (ids) => {
      if (!up) throw new Error('connection refused');
      return ids.map(() => true);
    }, log);
    const now = Date.now();
    expect(await guard.firstTime('x:impression', now)).toBe(true);
    expect(await guard.firstTime('y:impression', now)).toBe(true);
    expect(guard.firstTime('x:impression', now)).toBe(false);
    up = true;
    expect(await guard.firstTime('z:impression', now)).toBe(true);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['warn impression replay guard', 'info impression replay guard']);
  });
});
