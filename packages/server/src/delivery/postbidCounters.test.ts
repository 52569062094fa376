import { describe, expect, it } from 'vitest';
import {
  admitThroughLease,
  describeWithOwnRedis,
  forEachDeliveryEngine,
  ownRedisServer,
  sleep,
  testClock,
  testLog,
  until,
} from '../../test/deliveryEngines.js';
import { openDeliveryCounters } from './openDelivery.js';
import { type DeliveryCounters, type Refusal } from './types.js';

/**
 * The post-bid monthly cap (the admin's postbidMaxImps per account and calendar month of UTC) as a
 * delivery counter, on both engines (the in-process counters, and Redis when REDIS_URL is set): two
 * engines opened on one deployment are two processes sharing the count. Then Redis killed and
 * restarted under it (a redis-server of the test's own: without Debian's binary that block is
 * skipped, except on CI where it fails). docs/traffic-quality.md states the bound.
 */
const T0 = Date.UTC(2026, 10, 23, 12); // 23 November 2026, 12:00 UTC
const DECEMBER = Date.UTC(2026, 11, 1);

/** One decision's post-bid take, letting a background exchange run while the allowance is on its way (Redis). */
function take(counters: DeliveryCounters, tenantId: number, maxImps: number, now: number): Promise<Refusal | null> {
  return admitThroughLease(
    () => counters.takePostbid(tenantId, maxImps, now),
    () => counters.flush(),
    3,
  );
}

/** The month's shared count as a process reads it once asked (Redis: after the read's exchange). */
async function countOf(counters: DeliveryCounters, tenantId: number, now: number): Promise<number> {
  counters.postbidCount(tenantId, now);
  await counters.flush();
  return counters.postbidCount(tenantId, now);
}

forEachDeliveryEngine((t) => {
  describe('post-bid monthly cap', () => {
    it('holds the cap exactly per account and UTC month; a new month starts at 0; 0 is no cap but still counts', async () => {
      const clock = testClock(T0);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const got: (Refusal | null)[] = [];
      for (let i = 0; i < 7; i++) got.push(await take(counters, 1, 5, clock.advance(10)));
      expect(got.filter((r) => r === null)).toHaveLength(5);
      expect(got.slice(5)).toEqual(['postbid_cap', 'postbid_cap']);
      expect(counters.stats().refused.postbid_cap).toBe(2);
      // another account has its own count
      expect(await take(counters, 2, 5, clock.now())).toBeNull();
      await counters.flush();
      expect(counters.postbidCount(1, clock.now())).toBe(5);
      // a higher cap set mid-month starts from the month's count
      expect(await take(counters, 1, 6, clock.now())).toBeNull();
      expect(await take(counters, 1, 6, clock.now())).toBe('postbid_cap');
      // 1 December, 00:00 UTC: a new month (a new key)
      expect(await take(counters, 1, 6, clock.set(DECEMBER))).toBeNull();
      await counters.flush();
      expect(counters.postbidCount(1, clock.now())).toBe(1);
      // no cap: nothing refused, every decision counted in the shared count
      for (let i = 0; i < 20; i++) expect(await take(counters, 3, 0, clock.advance(10))).toBeNull();
      await counters.flush();
      expect(counters.postbidCount(3, clock.now())).toBe(20);
    });

    it('holds the cap across two processes sharing the counters: the month ends at the cap, not at twice it', async () => {
      const clock = testClock(T0);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const taken = [0, 0];
      for (let i = 0; i < 120; i++) {
        const which = i % 2;
        if ((await take(which ? b : a, 9, 40, clock.advance(20))) === null) taken[which]!++;
        if (i % 5 === 4) await Promise.all([a.flush(), b.flush()]);
      }
      await Promise.all([a.flush(), b.flush()]);
      expect(taken[0]! + taken[1]!).toBe(40);
      expect(taken[0]).toBeGreaterThan(0);
      expect(taken[1]).toBeGreaterThan(0);
      expect(a.postbidCount(9, clock.now())).toBe(40);
      // a third process (a worker started now) is refused at once: the shared count is at the cap
      const c = await deployment.open({ clock: clock.now, timers: false });
      expect(await take(c, 9, 40, clock.now())).toBe('postbid_cap');
    });

    it('a process that only reads the count (the trace, "Test this tag") sees the takes of the others within a renewal', async () => {
      const clock = testClock(T0);
      const deployment = t.deployment();
      const a = await deployment.open({ clock: clock.now, timers: false });
      // the reader's own background exchanges (every 100 ms of real time, on the test clock)
      const b = await deployment.open({ clock: clock.now });
      try {
        expect(await countOf(b, 11, clock.now())).toBe(0);
        for (let i = 0; i < 4; i++) expect(await take(a, 11, 0, clock.advance(10))).toBeNull();
        await a.flush();
        // a renewal later, still asked about: read again
        clock.advance(1_500);
        for (let waited = 0; b.postbidCount(11, clock.now()) < 4 && waited < 3_000; waited += 50)
          await new Promise((r) => setTimeout(r, 50));
        expect(b.postbidCount(11, clock.now())).toBe(4);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("starts the month at the stats store's count, and raises it while serving without losing a process's allowance", async () => {
      const clock = testClock(T0);
      const deployment = t.deployment();
      const a = await deployment.open({ clock: clock.now, timers: false });
      // at start (postbidCapSeed.ts): nothing held yet, the shared count is raised to the month so far
      await a.raiseCounts({ campaigns: [], tags: [], postbid: [{ tenantId: 4, count: 30 }] }, clock.now());
      expect(await countOf(a, 4, clock.now())).toBe(30);
      // never lowered
      await a.raiseCounts({ campaigns: [], tags: [], postbid: [{ tenantId: 4, count: 10 }] }, clock.now());
      expect(await take(a, 4, 40, clock.advance(10))).toBeNull();
      await a.flush();
      expect(a.postbidCount(4, clock.now())).toBe(31);
      // a holds an allowance now; the minute's raise (another node's impressions: 35 in the store)
      // reaches the shared count through a's own exchange, and through b's plain ask: a's lease stays counted
      const b = await deployment.open({ clock: clock.now, timers: false });
      await a.raiseCounts({ campaigns: [], tags: [], postbid: [{ tenantId: 4, count: 35 }] }, clock.now());
      await b.raiseCounts({ campaigns: [], tags: [], postbid: [{ tenantId: 4, count: 35 }] }, clock.now());
      // b takes what it can first (a does not exchange meanwhile), then a, on the allowance it holds
      const more = [0, 0];
      for (const [n, p] of [b, a].entries()) {
        for (let i = 0; i < 10; i++) if ((await take(p, 4, 40, clock.advance(10))) === null) more[n]!++;
      }
      await Promise.all([a.flush(), b.flush()]);
      expect(more[0]! + more[1]!).toBe(5);
      expect(more[1]).toBeGreaterThan(0);
      expect(await countOf(b, 4, clock.now())).toBe(40);
    });
  });
});

/** One real-time take, waiting for an allowance on its way: 2 s at most (a busy two-core machine may keep the Redis round trip past 100 ms). */
function takeNow(counters: DeliveryCounters, tenantId: number, maxImps: number): Promise<Refusal | null> {
  return admitThroughLease(
    () => counters.takePostbid(tenantId, maxImps, Date.now()),
    () => sleep(5),
    400,
  );
}

describeWithOwnRedis('post-bid monthly cap with Redis killed mid-test and restarted', (redis) => {
  it('goes on within the allowance plus the down margin while Redis is down, then reconciles the count', {
    timeout: 40_000,
  }, async () => {
    const options = { log: testLog(), prefix: 'pb-outage:', tickMs: 50, renewMs: 200, downMargin: 0.01 };
    const a = await openDeliveryCounters({ redisUrl: redis.url }, options);
    const b = await openDeliveryCounters({ redisUrl: redis.url }, { ...options, log: testLog() });
    const CAP = 1_000;
    try {
      for (let i = 0; i < 100; i++) for (const p of [a, b]) expect(await takeNow(p, 1, CAP)).toBeNull();
      await a.flush();
      await b.flush();
      await a.flush();
      expect(a.postbidCount(1, Date.now())).toBe(200);

      await redis.kill();
      const down = [0, 0];
      for (let i = 0; i < 60; i++)
        for (const [n, p] of [a, b].entries()) if ((await takeNow(p, 1, CAP)) === null) down[n]!++;
      await a.flush();
      await b.flush();
      expect(a.health().redis).toBe('down');
      // each went on with its allowance (about a second of its post-bid decisions: at most 20 here)
      // plus at most 1% of the cap (10), not with the rest of the cap
      for (const n of down) {
        expect(n).toBeGreaterThan(0);
        expect(n).toBeLessThanOrEqual(20 + 10);
      }

      // Redis comes back empty (no persistence): the count is raised back to what the processes saw, plus theirs
      await redis.start();
      await until('both processes back on Redis', () => a.health().redis === 'ok' && b.health().redis === 'ok');
      await a.flush();
      await b.flush();
      await a.flush();
      expect(a.postbidCount(1, Date.now())).toBe(200 + down[0]! + down[1]!);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a process that starts with Redis unreachable adds no post-bid pixels under a small cap (1% of it is 0) until Redis answers', {
    timeout: 30_000,
  }, async () => {
    const later = await ownRedisServer();
    const counters = await openDeliveryCounters(
      { redisUrl: later.url },
      { log: testLog(), prefix: 'pb-late:', tickMs: 50, renewMs: 200, connectTimeoutMs: 300 },
    );
    try {
      await counters.flush();
      expect(counters.health().redis).toBe('down');
      for (let i = 0; i < 10; i++) expect(await takeNow(counters, 1, 50)).toBe('postbid_cap');
      await later.start();
      await until('Redis joined', () => counters.health().redis === 'ok');
      await counters.flush();
      expect(await takeNow(counters, 1, 50)).toBeNull();
    } finally {
      await counters.close();
      await later.stop();
    }
  });
});
