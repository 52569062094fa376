export * from './types.js';
export * from './catalogue.js';
export * from './validate.js';
