export type * from './types.js';
export { openDeliveryCounters, openConfigChangeBus, type DeliverySettings, type OpenDeliveryOptions, DEFAULT_PREFIX } from './openDelivery.js';
export { type ConfigChangeBus, type ConfigChangeListener } from './configChangeBus.js';
export { viewerKey } from './frequency.js';
export { COUNTERS_FILE } from './savedCounters.js';
export { pacingState, tenantDay, allowedRate, targetSoFar, type PacingState, type PacingMode } from './pacing.js';
