export * from './constants.js';
export * from './format.js';
export * from './cipher.js';
export * from './schemas/common.js';
export * from './schemas/auth.js';
export * from './schemas/profile.js';
export * from './entities/index.js';
export * from './reference/index.js';
