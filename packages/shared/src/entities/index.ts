export * from './common.js';
export * from './targeting.js';
export * from '../kinds/index.js';
export * from './registry.js';
