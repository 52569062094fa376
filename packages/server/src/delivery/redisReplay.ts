import { Redis } from 'ioredis';
import { type ImpressionReplayGuard, ReplayGuard, SharedReplayGuard, TRACKING_LIFETIME_HOURS } from '../edge/tracking/replayGuard.js';
import { type DeliveryLog } from './types.js';

/**
 * The impression replay guard: with REDIS_URL, shared by every process on that Redis (one
 * `SET <prefix>r:<id> 1 PX <token lifetime> NX` per counted event, pipelined per turn of the event
 * loop); without, this process's memory. A cluster worker passes its own (cluster/).
 */
export async function openReplayGuard(settings: { redisUrl: string | null }, options: { log: DeliveryLog; prefix: string }): Promise<ImpressionReplayGuard> {
  if (!settings.redisUrl) return new ReplayGuard();
  const client = new Redis(settings.redisUrl, {
    lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000, connectTimeout: 2_000, retryStrategy: (times: number) => Math.min(times * 100, 1_000),
  });
  // a failed check is logged by the guard (once per outage)
  client.on('error', () => {});
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2_000);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
    client.connect().catch(() => {});
  });
  const ttlMs = TRACKING_LIFETIME_HOURS * 3_600_000;
  const check = async (ids: string[]): Promise<boolean[]> => {
    const pipe = client.pipeline();
    for (const id of ids) pipe.set(`${options.prefix}r:${id}`, '1', 'PX', ttlMs, 'NX');
    const replies = (await pipe.exec()) ?? [];
    return ids.map((_, i) => {
      const [error, reply] = replies[i] ?? [new Error('no reply'), null];
      if (error) throw error;
      return reply === 'OK';
    });
  };
  return new SharedReplayGuard(check, options.log, async () => {
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  });
}
