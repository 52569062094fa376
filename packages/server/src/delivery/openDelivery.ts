import { systemClock } from '../clock.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type ConfigChangeBus, LocalConfigChangeBus, RedisConfigChangeBus } from './configChangeBus.js';
import { DeliveryEngine, type DeliveryOptions } from './deliveryEngine.js';
import { RedisShared } from './redisShared.js';
import { checkpointCounters, restoreCounters, saveCounters } from './savedCounters.js';
import { MemoryCounterStore, MemoryShared, type SharedCounters } from './sharedCounters.js';
import { type DeliveryCounters, type DeliveryLog } from './types.js';

/**
 * The engine is a setting: REDIS_URL set, the counters are shared through Redis; unset, they live in
 * this process. Both behave alike on the request path (synchronous, local allowances).
 */
export interface DeliverySettings {
  redisUrl: string | null;
}

export interface OpenDeliveryOptions extends DeliveryOptions {
  /** Prefix of Redis keys and channels (default `adplane:`); tests use one of their own. */
  prefix?: string;
  /** This process's name in the shared counters (default host:pid:random). */
  processId?: string;
  /** How long to wait for Redis at start before serving in the down state (it keeps trying). */
  connectTimeoutMs?: number;
  /** In-process engine: the store to share (tests run several engines on one); default a fresh one. */
  memoryStore?: MemoryCounterStore;
  /** In-process engine: where its counters are saved when it closes (and every checkpointMs) and read back when it opens (savedCounters.ts). */
  countersFile?: string;
  /** How often the in-process counters are written while running (default ops/savedFile.ts CHECKPOINT_MS). */
  checkpointMs?: number;
  /** Another transport of the shared counters (a cluster worker's link to its primary): used whatever the settings. */
  shared?: (processId: string, leaseTtlMs: number) => SharedCounters;
}

export const DEFAULT_PREFIX = 'adplane:';

const newProcessId = (): string => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

export async function openDeliveryCounters(
  settings: DeliverySettings,
  options: OpenDeliveryOptions,
): Promise<DeliveryCounters> {
  const processId = options.processId ?? newProcessId();
  const leaseTtlMs = options.leaseTtlMs ?? 5_000;
  if (options.shared) return new DeliveryEngine(options.shared(processId, leaseTtlMs), options);
  if (!settings.redisUrl) {
    const store = options.memoryStore ?? new MemoryCounterStore();
    const file = options.countersFile;
    const clock = options.clock ?? systemClock.now;
    if (!file) return new DeliveryEngine(new MemoryShared(store, processId, leaseTtlMs), options);
    restoreCounters(store, file, clock(), options.log);
    const checkpoint = checkpointCounters(store, file, options.log, options.checkpointMs, clock);
    const saveAtStop = () => {
      void checkpoint.stop();
      saveCounters(store, file, clock(), options.log);
    };
    return new DeliveryEngine(new MemoryShared(store, processId, leaseTtlMs, saveAtStop), options);
  }
  const shared = new RedisShared({
    url: settings.redisUrl,
    prefix: options.prefix ?? DEFAULT_PREFIX,
    pid: processId,
    leaseTtlMs,
  });
  const up = await shared.connect(options.connectTimeoutMs ?? 2_000);
  if (!up)
    options.log.warn(
      { processId },
      'delivery counters: Redis did not answer at start; serving within the down margin until it does',
    );
  return new DeliveryEngine(shared, options);
}

export async function openConfigChangeBus(
  settings: DeliverySettings,
  options: { log: DeliveryLog; prefix?: string; connectTimeoutMs?: number },
): Promise<ConfigChangeBus> {
  if (!settings.redisUrl) return new LocalConfigChangeBus(options.log);
  const bus = new RedisConfigChangeBus(settings.redisUrl, options.prefix ?? DEFAULT_PREFIX, options.log);
  if (!(await bus.ready(options.connectTimeoutMs ?? 2_000)))
    options.log.warn({}, 'config change bus: Redis did not answer at start; snapshots rely on polling until it does');
  return bus;
}
