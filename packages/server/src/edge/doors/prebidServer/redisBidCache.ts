import { Redis } from 'ioredis';
import { type CachedDoc, parseCachedDoc, type SharedCacheStore } from './bidCache.js';

/**
 * The Prebid cache entries of every edge process on one Redis: `SET <prefix>c:<uuid> <doc> EX <ttl>`
 * and `GET`, on a connection of its own (commands fail at once while Redis is away and time out after
 * a second: the auction answers on without the shared copy, and the entry still answers on the
 * process that stored it).
 */
export function redisCacheStore(redisUrl: string, prefix: string): SharedCacheStore {
  const client = new Redis(redisUrl, {
    // no offline queue: while Redis is away a put fails at once (the auction does not wait for it)
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1_000,
    connectTimeout: 2_000,
    retryStrategy: (times: number) => Math.min(times * 100, 1_000),
  });
  // a failed command is logged by the cache (once per outage)
  client.on('error', () => {});
  const key = (uuid: string) => `${prefix}c:${uuid}`;
  return {
    async put(uuid: string, doc: CachedDoc, ttlSeconds: number) {
      await client.set(key(uuid), JSON.stringify(doc), 'EX', ttlSeconds);
    },
    async get(uuid: string) {
      return parseCachedDoc(await client.get(key(uuid)));
    },
    async close() {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}
