import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  admitThroughLease,
  describeWithOwnRedis,
  ownRedisServer,
  sleep,
  testLog,
  until,
} from '../../test/deliveryEngines.js';
import { openConfigChangeBus, openDeliveryCounters } from './openDelivery.js';
import { type Admission, type DeliveryCounters, type Refusal } from './types.js';

/**
 * Redis killed mid-test and restarted: the test runs a redis-server of its own on a random port
 * (Debian's binary; without it the block is skipped, except on CI where it fails).
 */
const PRICE = 1_000;
let ids = 0;

/**
 * Serve one impression now (decision and event), waiting for a lease on its way: 2 s at most (a lease
 * comes in a few ms, but a busy two-core machine may keep the Redis round trip past 100 ms).
 */
async function serve(counters: DeliveryCounters, admission: Admission): Promise<Refusal | null> {
  const id = `o${ids++}`;
  const refusal = await admitThroughLease(
    () => counters.admit(id, admission, Date.now()),
    () => sleep(5),
    400,
  );
  if (!refusal) counters.commit(id, admission, Date.now());
  return refusal;
}

describeWithOwnRedis('Redis killed mid-test and restarted', (redis) => {
  it('serves on local allowances within the down margin, logs it once, shows it in health, and reconciles the spend when Redis is back', {
    timeout: 60_000,
  }, async () => {
    const prefix = 'outage:';
    const logs = [testLog(), testLog()];
    const options = (i: number) => ({ log: logs[i]!, prefix, tickMs: 50, renewMs: 200, downMargin: 0.01 });
    const a = await openDeliveryCounters({ redisUrl: redis.url }, options(0));
    const b = await openDeliveryCounters({ redisUrl: redis.url }, options(1));
    const bus = await openConfigChangeBus({ redisUrl: redis.url }, { log: logs[0]!, prefix });
    const heard: (number | null)[] = [];
    bus.subscribe((v) => heard.push(v));
    const campaign = {
      id: 1,
      timezone: 0,
      dailyBudget: 1_000 * PRICE,
      totalBudget: 'unlimited' as const,
      pacing: 'asap' as const,
      frequencyCap: null,
    };
    const adm = { campaign, priceMicros: PRICE };
    try {
      for (let i = 0; i < 100; i++) for (const p of [a, b]) expect(await serve(p, adm)).toBeNull();
      await a.flush();
      await b.flush();
      await a.flush();
      const [before] = await a.readPacing([campaign], Date.now());
      expect(before!.spentToday).toBe(200 * PRICE);

      await redis.kill();
      const down = [0, 0];
      for (let i = 0; i < 60; i++) {
        for (const [n, p] of [a, b].entries()) if ((await serve(p, adm)) === null) down[n]!++;
      }
      await a.flush();
      await b.flush();
      expect(a.health()).toMatchObject({ engine: 'redis', redis: 'down' });
      expect(b.health().redis).toBe('down');
      // each kept serving, on its lease plus at most 1% of the budget (10 impressions); the lease is
      // about a second of its recent spend: 100 impressions in a 5 s decaying average, at most 20
      for (const n of down) {
        expect(n).toBeGreaterThan(10);
        expect(n).toBeLessThanOrEqual(20 + 10);
      }
      expect(a.stats().exchangeFailures).toBeGreaterThan(0);
      for (const log of logs)
        expect(log.lines.filter((l) => l.level === 'warn' && l.msg.includes('unreachable'))).toHaveLength(1);

      // Redis comes back empty (no persistence): the processes restore the spend they had seen and add theirs
      await redis.start();
      await until('both processes back on Redis', () => a.health().redis === 'ok' && b.health().redis === 'ok');
      await a.flush();
      await b.flush();
      const [after] = await a.readPacing([campaign], Date.now());
      expect(after!.spentToday).toBe((200 + down[0]! + down[1]!) * PRICE);
      expect(after!.spentToday).toBeLessThanOrEqual(1_000 * PRICE);
      for (const log of logs)
        expect(log.lines.filter((l) => l.level === 'info' && l.msg.includes('back'))).toHaveLength(1);
      // the config bus asks its listeners to check the version after the reconnect
      await until('the config bus resubscribed', () => heard.includes(null));
    } finally {
      await a.close();
      await b.close();
      await bus.close();
    }
  });

  it('starts with Redis unreachable (serving within the margin) and joins it when it answers', {
    timeout: 60_000,
  }, async () => {
    const later = await ownRedisServer();
    const log = testLog();
    const counters = await openDeliveryCounters(
      { redisUrl: later.url },
      { log, prefix: 'late:', tickMs: 50, renewMs: 200, connectTimeoutMs: 300 },
    );
    try {
      const adm = {
        campaign: {
          id: 2,
          timezone: 0,
          dailyBudget: 1_000 * PRICE,
          totalBudget: 'unlimited' as const,
          pacing: 'asap' as const,
          frequencyCap: null,
        },
        priceMicros: PRICE,
      };
      await counters.flush();
      expect(counters.health().redis).toBe('down');
      let served = 0;
      for (let i = 0; i < 30; i++) if ((await serve(counters, adm)) === null) served++;
      expect(served).toBe(10); // never synced: 1% of the budget
      await later.start();
      await until('Redis joined', () => counters.health().redis === 'ok');
      await counters.flush();
      const [state] = await counters.readPacing([adm.campaign], Date.now());
      expect(state!.spentToday).toBe(10 * PRICE);
      expect(await serve(counters, adm)).toBeNull();
    } finally {
      await counters.close();
      await later.stop();
    }
  });
});

describe('config changes over Redis pub/sub', () => {
  it.skipIf(!process.env.REDIS_URL)('reach another process within a second', async () => {
    const url = process.env.REDIS_URL!;
    // a channel of this run's own on the one Redis, which other test files use at the same time
    const prefix = `bus-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
    const api = await openConfigChangeBus({ redisUrl: url }, { log: testLog(), prefix });
    const edge = await openConfigChangeBus({ redisUrl: url }, { log: testLog(), prefix });
    try {
      const heard: (number | null)[] = [];
      const seen: (number | null)[] = [];
      edge.subscribe((v) => heard.push(v));
      api.subscribe((v) => seen.push(v));
      const sent = Date.now();
      api.publish(42);
      await until('the edge heard it', () => heard.includes(42), 1_000);
      expect(Date.now() - sent).toBeLessThan(1_000);
      // the publisher's own listeners hear it once (not again through Redis)
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual([42]);
    } finally {
      await api.close();
      await edge.close();
    }
  });

  it('in one process, calls the listeners', async () => {
    const bus = await openConfigChangeBus({ redisUrl: null }, { log: testLog() });
    const heard: (number | null)[] = [];
    const off = bus.subscribe((v) => heard.push(v));
    bus.publish(7);
    await until('heard', () => heard.length === 1, 1_000);
    off();
    bus.publish(8);
    await new Promise((r) => setTimeout(r, 20));
    expect(heard).toEqual([7]);
    expect(bus.engine).toBe('memory');
  });
});
