/** Reference data of the product: the lists the console shows and the ad server matches on. */
export * from './types.js';
export * from './iabCategories.js';
export * from './countries.js';
export * from './regions.js';
export * from './usStates.js';
export * from './platforms.js';
export * from './partners/index.js';
