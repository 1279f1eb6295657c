export * from './build-app';
export * from './env';
export * from './payload-schemas';
