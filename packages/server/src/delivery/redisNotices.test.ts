import { afterAll, expect, it } from 'vitest';
import { dropRedisPrefix } from '../../test/deliveryEngines.js';
import { RedisShared } from './redisShared.js';
import { type Notices } from './sharedCounters.js';

/**
 * A process hears the commit notices the others publish from the moment it is connected: pub/sub
 * keeps nothing for a subscriber still on its way, and a notice lost drops no reservation, which
 * then holds its budget until the hold time (the last impression of a budget stranded for a minute:
 * seen in deliveryCounters.test.ts's random walks, where processes start and trade at once).
 */
const url = process.env.REDIS_URL;
const prefix = `redis-notices:${process.pid}:`;
if (url) afterAll(() => dropRedisPrefix(url, prefix));

it.runIf(url !== undefined)('is subscribed to the notices once connected', async () => {
  const [a, b] = [new RedisShared({ url: url!, prefix, pid: 'a', leaseTtlMs: 5_000 }), new RedisShared({ url: url!, prefix, pid: 'b', leaseTtlMs: 5_000 })];
  try {
    expect(await a.connect()).toBe(true);
    expect(await b.connect()).toBe(true);
    const heard: Notices[] = [];
    b.onNotices((n) => heard.push(n));
    a.publishNotices({ commits: ['d1'], views: [] });
    await expect.poll(() => heard, { timeout: 2_000 }).toEqual([{ commits: ['d1'], views: [] }]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
