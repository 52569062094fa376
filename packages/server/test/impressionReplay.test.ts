import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { openReplayGuard } from '../src/edge/tracking/redisReplay.js';
import {
  type ImpressionReplayGuard,
  PAGE_DECISIONS,
  TRACKING_LIFETIME_HOURS,
} from '../src/edge/tracking/replayGuard.js';
import { newDecisionId, unfilledDecisionId } from '../src/edge/tracking/trackingToken.js';
import { dropRedisPrefix, testLog } from './deliveryEngines.js';

/**
 * The impression replay guard as the edge opens it (edge/tracking/redisReplay.ts): this process's pages
 * without REDIS_URL, Redis's with it. On Redis, two processes share what was counted, and a filled
 * decision's events take a bit in a page key, not a key each.
 */
const redisUrl = process.env.REDIS_URL ?? '';
// a namespace of this run's own on the one Redis, which other test files use at the same time
const prefix = `adplane-test:${process.pid}:${randomBytes(4).toString('hex')}:replay:`;
const opened: ImpressionReplayGuard[] = [];
afterAll(async () => {
  for (const guard of opened) await guard.close?.();
  if (redisUrl) await dropRedisPrefix(redisUrl, prefix);
});

async function guard(url: string | null): Promise<ImpressionReplayGuard> {
  const g = await openReplayGuard({ redisUrl: url }, { log: testLog(), prefix });
  opened.push(g);
  return g;
}

const keysOf = (ids: readonly string[], events: readonly string[]) =>
  ids.flatMap((id) => events.map((e) => `${id}:${e}`));
const answers = (g: ImpressionReplayGuard, keys: readonly string[], now: number) =>
  Promise.all(keys.map((k) => g.firstTime(k, now)));

describe('impression replay guard, in this process', () => {
  it('counts each event of a decision once, whatever its form', async () => {
    const g = await guard(null);
    const keys = [
      ...keysOf([newDecisionId(), newDecisionId()], ['impression', 'complete']),
      `${unfilledDecisionId()}:impression`,
    ];
    expect(await answers(g, keys, Date.now())).toEqual(keys.map(() => true));
    expect(await answers(g, keys, Date.now())).toEqual(keys.map(() => false));
  });
});

describe.runIf(redisUrl || process.env.CI === 'true')('impression replay guard, on Redis', () => {
  it('needs REDIS_URL on CI', () => {
    expect(redisUrl, 'CI=true but REDIS_URL is unset: start it with .ci/redis.sh (see .ci/run)').not.toBe('');
  });

  it('shares what was counted between processes: a beacon replayed to the other counts nothing', async () => {
    const [a, b] = [await guard(redisUrl), await guard(redisUrl)];
    const filled = Array.from({ length: 3 }, () => newDecisionId());
    const keys = [
      ...keysOf(filled, ['impression', 'start', 'postbid_ivt']),
      `${unfilledDecisionId()}:impression`,
      'foreign-id:impression',
    ];
    const now = Date.now();
    expect(await answers(a, keys, now)).toEqual(keys.map(() => true));
    expect(await answers(b, keys, now)).toEqual(keys.map(() => false));
    // events of the same decisions not counted yet are new to either
    const more = keysOf(filled, ['complete']);
    expect(await answers(b, more, now)).toEqual(more.map(() => true));
    expect(await answers(a, more, now)).toEqual(more.map(() => false));
  });

  it("keeps a filled decision's events as bits of a page key that lives the token's lifetime", async () => {
    const g = await guard(redisUrl);
    const redis = new Redis(redisUrl);
    try {
      const ids = Array.from({ length: PAGE_DECISIONS }, () => newDecisionId());
      const keys = keysOf(ids, ['impression', 'midpoint']);
      expect(await answers(g, keys, Date.now())).toEqual(keys.map(() => true));
      const pages = await redis.keys(`${prefix}rp:${ids[0]!.slice(0, 8)}:*`);
      // 8,192 events of 4,096 consecutive decisions: one page, or two when the run started mid-page
      expect(pages.length).toBeGreaterThanOrEqual(1);
      expect(pages.length).toBeLessThanOrEqual(2);
      for (const page of pages) {
        const ttl = await redis.pttl(page);
        expect(ttl).toBeGreaterThan((TRACKING_LIFETIME_HOURS - 1) * 3_600_000);
        expect(ttl).toBeLessThanOrEqual(TRACKING_LIFETIME_HOURS * 3_600_000);
        expect(await redis.strlen(page)).toBeLessThanOrEqual(PAGE_DECISIONS);
      }
      // and no key per event
      expect(await redis.exists(`${prefix}r:${keys[0]}`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });
});
