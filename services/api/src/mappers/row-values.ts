/** Shared conversions from row values to response values: one definition, in `@bda/db`, used by the indexer too. */
export { int, unixToIso } from '@bda/db';
