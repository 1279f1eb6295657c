export * from './runes-router';
export { createRunesDb, knexRunesDb, type RunesDb } from './datastore/runes-db';
