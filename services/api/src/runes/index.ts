export * from './runes-router';
export { createRunesDb, knexRunesDb, type RunesDb, type RunesPoolOptions } from './datastore/runes-db';
