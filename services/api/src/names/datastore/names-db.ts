import type { Knex } from 'knex';
import { query, type Statement } from '../../datastore/read-statement';
import type { RunesDb } from '../../runes';

/** Where the naming statements run: one fixed statement (`$n` placeholders) a call, rows as objects. */
export interface NamesDb {
  query<T>(s: Statement, values: unknown[]): Promise<T[]>;
}

/** On connections of knex's pool, as named prepared statements (`datastore/read-statement.ts`). */
export function knexNamesDb(db: Knex): NamesDb {
  return { query: <T>(s: Statement, values: unknown[]) => query<T>(db, s, values) };
}

/**
 * On a plain `pg` pool of their own (`createRunesDb`'s: named prepared statements, generic plans, a failed connection
 * dropped, a full pool a 503). That pool numbers `?` placeholders; the naming statements use `$n` and contain no `?`.
 */
export function pooledNamesDb(pool: RunesDb): NamesDb {
  return { query: <T>(s: Statement, values: unknown[]) => pool.query<T>(s.text, values) };
}
