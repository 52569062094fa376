import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openReplayGuard } from './redisReplay.js';
import { PAGE_DECISIONS, ReplayGuard, SharedReplayGuard } from './replayGuard.js';
import { REPLAY_FILE } from './savedReplay.js';
import { newDecisionId, unfilledDecisionId } from './trackingToken.js';

const quiet = () => {
  const lines: string[] = [];
  return {
    lines,
    log: {
      warn: (_o: object, m: string) => lines.push(`warn ${m}`),
      info: (_o: object, m: string) => lines.push(`info ${m}`),
    },
  };
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

  it("keeps a filled decision's events as bits in pages of its process's decisions, each counted once", () => {
    const guard = new ReplayGuard();
    const t = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 3 * PAGE_DECISIONS }, () => newDecisionId());
    const events = ['impression', 'start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete', 'postbid_ivt'];
    const answers = (at: number) => new Set(ids.flatMap((id) => events.map((e) => guard.firstTime(`${id}:${e}`, at))));
    expect(answers(t)).toEqual(new Set([true]));
    expect(answers(t + 60_000)).toEqual(new Set([false]));
    // 3 pages of 4 KB (4 if the run's first id was not at a page's start), no string kept
    expect(guard.size().pages).toBeLessThanOrEqual(4);
    expect(guard.size().otherKeys).toBe(0);
    // another process's ids (another prefix) with the same counters are other decisions
    const other = ids[0]!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    expect(guard.firstTime(`${other}:impression`, t)).toBe(true);
    expect(guard.firstTime(`${other}:impression`, t)).toBe(false);
  });

  it('keeps ids of another form (an unfilled decision, a foreign id, an odd spelling) as strings, each counted once', () => {
    const guard = new ReplayGuard();
    const t = Date.UTC(2026, 0, 1);
    const id = newDecisionId();
    const prefix = id.slice(0, 8);
    const n = parseInt(id.slice(8), 36);
    const keys = [
      `${unfilledDecisionId()}:impression`,
      'short:impression',
      // the same counter spelt with a leading zero is another id: never the filled decision's slot
      `${prefix}0${n.toString(36)}:impression`,
      `${prefix}${'z'.repeat(11)}:impression`,
      `${id}:__proto__`,
      `${id}:constructor`,
      `${id}:clicks`,
    ];
    for (const key of keys) expect(guard.firstTime(key, t), key).toBe(true);
    expect(guard.firstTime(`${id}:impression`, t)).toBe(true);
    for (const key of keys) expect(guard.firstTime(key, t), key).toBe(false);
    expect(guard.size()).toEqual({ pages: 1, otherKeys: keys.length });
  });

  it("keeps clicks and errors in pages of their own, and an unfilled decision's errors in pages of its counters", () => {
    const guard = new ReplayGuard();
    const t = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 10 }, () => newDecisionId());
    const unfilled = Array.from({ length: 10 }, () => unfilledDecisionId());
    const keys = [
      ...ids.flatMap((id) => [`${id}:impression`, `${id}:click`, `${id}:error`]),
      ...unfilled.map((id) => `${id}:error`),
    ];
    for (const key of keys) expect(guard.firstTime(key, t), key).toBe(true);
    for (const key of keys) expect(guard.firstTime(key, t), key).toBe(false);
    // delivery events, clicks and errors, unfilled errors: a page each, no string kept
    expect(guard.size()).toEqual({ pages: 3, otherKeys: 0 });
    // an unfilled decision reports nothing but errors: another event of it is kept as a string
    expect(guard.firstTime(`${unfilled[0]}:click`, t)).toBe(true);
    expect(guard.size()).toEqual({ pages: 3, otherKeys: 1 });
  });

  it('drops a page untouched for the lifetime, and keeps one an event touched since', () => {
    const guard = new ReplayGuard(2);
    const t = Date.UTC(2026, 0, 1);
    const first = newDecisionId();
    // the next page of the same process: far enough in its counter
    let later = newDecisionId();
    for (let i = 0; i < PAGE_DECISIONS; i++) later = newDecisionId();
    expect(guard.firstTime(`${first}:impression`, t)).toBe(true);
    expect(guard.firstTime(`${later}:impression`, t)).toBe(true);
    expect(guard.firstTime(`${later}:complete`, t + 1.5 * 3_600_000)).toBe(true);
    expect(guard.size().pages).toBe(2);
    // two hours on: the first page was last touched 2 hours ago (its tokens have expired), the other 30 minutes ago
    expect(guard.firstTime(`${later}:start`, t + 2 * 3_600_000)).toBe(true);
    expect(guard.size().pages).toBe(1);
    expect(guard.firstTime(`${later}:impression`, t + 2 * 3_600_000)).toBe(false);
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
    const answers = await Promise.all([
      guard.firstTime('a:impression', now),
      guard.firstTime('elsewhere:impression', now),
      guard.firstTime('b:start', now),
    ]);
    expect(answers).toEqual([true, false, true]);
    expect(asked).toEqual([['a:impression', 'elsewhere:impression', 'b:start']]);
    // seen here already: no question
    expect(guard.firstTime('a:impression', now)).toBe(false);
    expect(asked).toHaveLength(1);
  });

  it('drains: every event asked about is answered and its count done before the final flush', async () => {
    const { log } = quiet();
    const guard = new SharedReplayGuard(
      (ids) => new Promise((resolve) => setTimeout(() => resolve(ids.map(() => true)), 30)),
      log,
    );
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

describe('the in-process replay guard across a restart (savedReplay.ts)', () => {
  const t = Date.UTC(2026, 0, 1);

  it('reads back what it counted, pages and other keys, and forgets what the lifetime passed', () => {
    const guard = new ReplayGuard(3);
    const filled = Array.from({ length: PAGE_DECISIONS + 10 }, () => newDecisionId());
    for (const id of filled) expect(guard.firstTime(`${id}:impression`, t)).toBe(true);
    const unfilled = unfilledDecisionId();
    expect(guard.firstTime(`${unfilled}:impression`, t)).toBe(true);
    const old = newDecisionId();
    // an event of two hours before: its page is forgotten an hour sooner than the others
    const early = new ReplayGuard(3);
    expect(early.firstTime(`${old}:start`, t - 2 * 3_600_000)).toBe(true);

    const again = new ReplayGuard(3);
    expect(again.restore(guard.saved(t + 60_000), t + 2 * 3_600_000)).toEqual(guard.size());
    for (const id of filled) expect(again.firstTime(`${id}:impression`, t + 2 * 3_600_000)).toBe(false);
    expect(again.firstTime(`${filled[0]}:complete`, t + 2 * 3_600_000)).toBe(true);
    expect(again.firstTime(`${unfilled}:impression`, t + 2 * 3_600_000)).toBe(false);

    // restored after the lifetime of the early page: nothing of it is kept
    const late = new ReplayGuard(3);
    expect(late.restore(early.saved(t - 2 * 3_600_000), t + 3_600_000)).toEqual({ pages: 0, otherKeys: 0 });
  });

  it('refuses a damaged or foreign file', () => {
    const saved = new ReplayGuard().saved(t);
    expect(() => new ReplayGuard().restore(saved.subarray(0, saved.length - 1), t)).toThrow();
    expect(() => new ReplayGuard().restore(Buffer.from('{"pages": []}'), t)).toThrow();
    const withPage = new ReplayGuard();
    withPage.firstTime(`${newDecisionId()}:impression`, t);
    const bytes = withPage.saved(t);
    expect(() => new ReplayGuard().restore(bytes.subarray(0, bytes.length - 100), t)).toThrow(/damaged/);
  });

  it('is kept by the edge process without Redis: a beacon replayed after a restart counts nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adplane-replay-'));
    try {
      const file = join(dir, REPLAY_FILE);
      const id = newDecisionId();
      const { log, lines } = quiet();
      const first = await openReplayGuard(
        { redisUrl: null },
        { log: { ...log, error: log.warn }, prefix: 'test:', file },
      );
      expect(await first.firstTime(`${id}:impression`, Date.now())).toBe(true);
      await first.close?.();
      const next = await openReplayGuard(
        { redisUrl: null },
        { log: { ...log, error: log.warn }, prefix: 'test:', file },
      );
      expect(lines.some((l) => /restored/.test(l))).toBe(true);
      expect(await next.firstTime(`${id}:impression`, Date.now())).toBe(false);
      expect(await next.firstTime(`${id}:midpoint`, Date.now())).toBe(true);
      await next.close?.();
      // a damaged file: empty, with a warning
      writeFileSync(file, 'not a guard');
      const fresh = await openReplayGuard(
        { redisUrl: null },
        { log: { ...log, error: log.warn }, prefix: 'test:', file },
      );
      expect(lines.some((l) => l.startsWith('warn') && /could not be read/.test(l))).toBe(true);
      expect(await fresh.firstTime(`${id}:impression`, Date.now())).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
