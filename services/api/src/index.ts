export * from './api-types';
export * from './build-app';
export * from './env';
export * from './openapi';
export * from './schema-validator';
