import type { Knex } from 'knex';

/**
 * Runs `fn` in one read-only REPEATABLE READ transaction, so a response built from several queries (the tip that
 * becomes its ETag, a page of keys, the rows they point to) sees one consistent state of the chain even while the
 * indexer writes. Works on a hot-standby replica too.
 */
export function readSnapshot<T>(db: Knex, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(fn, { isolationLevel: 'repeatable read', readOnly: true });
}
