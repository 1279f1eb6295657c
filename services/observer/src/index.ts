export * from './build-app';
export * from './env';
export * from './payload-schemas';
export * from './check-node-event';
export * from './import-events';
export * from './node-event-file';
export * from './observer-bus';
export * from './indexer-pacer';
export { runImportCommand } from './cli/import';
