/**
 * One home per kind: schema, references, reference-data checks, list extras, typed parser of the
 * stored document and output types. Server and console import from here (through the package root).
 */
export * from './storedRow.js';
export * from './serving.js';
export * from './channels.js';
export * from './tags.js';
export * from './sups.js';
export * from './campaigns.js';
export * from './creatives.js';
export * from './adexchanges.js';
export * from './deals.js';
export * from './supplyDeals.js';
export * from './targetings.js';
export * from './lists.js';
export * from './ivts.js';
export * from './accounts.js';
export * from './tooltips.js';
export * from './sdkapps.js';
