export * from './types.js';
export * from './catalogue.js';
export * from './validate.js';
export { describePartnerParams } from './describe.js';
export { describeValue } from './errors.js';
export { assertSupportedSchema, requiredSets, type JsonSchema, type JsonType } from './jsonSchema.js';
