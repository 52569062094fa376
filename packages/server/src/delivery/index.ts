export type * from './types.js';
export { openDeliveryCounters, openConfigChangeBus, DEFAULT_PREFIX } from './openDelivery.js';
export { type ConfigChangeBus } from './configChangeBus.js';
export { COUNTERS_FILE } from './savedCounters.js';
