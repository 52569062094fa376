import { type ConfigChangeBus } from '../delivery/configChangeBus.js';
import { type DeliveryLog } from '../delivery/types.js';
import { type EdgeOptions } from '../edge/edgePlugin.js';
import { type ImpressionReplayGuard, SharedReplayGuard } from '../edge/tracking/replayGuard.js';
import { type Settings } from '../settings.js';
import { type StatsStore } from '../stats/statsStore.js';
import { IpcConfigChangeBus } from './ipcConfigBus.js';
import { IpcShared } from './ipcShared.js';
import { IpcStatsStore } from './ipcStatsStore.js';
import { WorkerLink } from './workerLink.js';

/** How long a worker waits for the primary's replay answer before counting the event on its own guard. */
const REPLAY_TIMEOUT_MS = 1_000;
/** How long a worker waits for the primary's journal before a write of counts (then the write waits for the next flush). */
const PERSIST_TIMEOUT_MS = 10_000;
/** How long a worker waits for the primary to store or read a Prebid cache entry (then: this worker's copy only). */
const CACHE_TIMEOUT_MS = 1_000;

export interface WorkerServices {
  /** The stats store through the primary (DuckDB); absent with ClickHouse: the worker connects itself. */
  stats?: StatsStore;
  /** Snapshot invalidation relayed by the primary; absent with Redis (pub/sub, as between nodes). */
  configBus?: (log: DeliveryLog) => ConfigChangeBus;
  edge: Pick<EdgeOptions, 'sharedCounters' | 'replay' | 'prebidCache'>;
}

/**
 * What a cluster worker takes from its primary instead of opening itself: whatever the settings
 * leave in one process (DuckDB, in-process counters, the local bus, the Prebid cache). With REDIS_URL
 * the counters, the bus, the replay guard and the Prebid cache are on Redis, exactly as for separate edge processes.
 */
export function workerServices(
  settings: Pick<Settings, 'redisUrl' | 'clickhouseUrl'>,
  link = new WorkerLink(),
): WorkerServices {
  const services: WorkerServices = { edge: {} };
  if (!settings.clickhouseUrl) services.stats = new IpcStatsStore(link);
  if (!settings.redisUrl) {
    services.configBus = (log) => new IpcConfigChangeBus(link, log);
    services.edge.sharedCounters = (processId, leaseTtlMs) => new IpcShared(link, processId, leaseTtlMs);
    services.edge.replay = (log): ImpressionReplayGuard =>
      new SharedReplayGuard(
        (keys, now) => link.call('firstTimes', { keys, now }, REPLAY_TIMEOUT_MS),
        log,
        undefined,
        async () => {
          await link.call('persistReplay', {}, PERSIST_TIMEOUT_MS);
        },
      );
    services.edge.prebidCache = {
      put: async (uuid, doc, ttlSeconds) => {
        await link.call('cachePut', { uuid, doc, ttlSeconds }, CACHE_TIMEOUT_MS);
      },
      get: async (uuid) => (await link.call('cacheGet', { uuid }, CACHE_TIMEOUT_MS)) ?? undefined,
    };
  }
  return services;
}
