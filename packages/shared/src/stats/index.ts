export * from './metrics.js';
export * from './dimensions.js';
export * from './report.js';
export * from './csv.js';
export * from './dashboard.js';
export * from './rowStats.js';
export * from './postbidReport.js';
export * from './visibility.js';
