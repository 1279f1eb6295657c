import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * Runs one read statement as a named prepared statement on a connection of the knex pool: each connection plans a
 * statement once (planning is most of the cost of these index-range reads). The name is a digest of the text, so the
 * same text always maps to the same statement. `?` placeholders, as in knex.
 */
export async function query<T>(db: Knex, sql: string, values: unknown[]): Promise<T[]> {
  const prepared = toPrepared(sql);
  const client = db.client as { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> };
  const connection = await client.acquireConnection();
  try {
    const result = await connection.query<T & pg.QueryResultRow>({ name: prepared.name, text: prepared.text, values });
    return result.rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

const cache = new Map<string, { name: string; text: string }>();

function toPrepared(sql: string): { name: string; text: string } {
  let prepared = cache.get(sql);
  if (!prepared) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    prepared = { name: `runes_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text };
    cache.set(sql, prepared);
  }
  return prepared;
}
