export * from './create-db';
export * from './db-types';
