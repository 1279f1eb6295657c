import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * Round trips are most of what applying a small event costs (each statement waits for PostgreSQL before the next
 * is sent), and planning is most of what a fixed statement costs. Two helpers cut both:
 * - `runPrepared` runs a statement as a named prepared statement of the transaction's connection: planned once
 *   per connection, then only bound and executed;
 * - `WriteBatch` sends several writes whose results nobody reads as one statement of data-modifying CTEs.
 */

type ConnectionClient = { acquireConnection(): Promise<pg.Client> };

const names = new Map<string, string>();

/** `text` uses `$1…` placeholders. Rows as node-postgres returns them (int8/numeric as strings, see `createDb`). */
export async function runPrepared<T extends pg.QueryResultRow>(
  trx: Knex.Transaction,
  text: string,
  values: unknown[],
): Promise<T[]> {
  let name = names.get(text);
  if (!name) {
    name = `idx_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  // Inside a transaction knex hands out the transaction's own connection (and releasing it is a no-op).
  const connection = await (trx.client as ConnectionClient).acquireConnection();
  const result = await connection.query<T>({ name, text, values });
  return result.rows;
}

/** PostgreSQL accepts 65 535 bind parameters per statement; a batch is sent before it would pass this. */
const MAX_BINDINGS = 30_000;

/**
 * Writes that do not depend on one another (no statement reads what another one writes: they all see the same
 * snapshot) and whose results are not needed, sent together: `WITH w0 AS (…), w1 AS (…) SELECT 1`. PostgreSQL runs
 * every data-modifying CTE exactly once and to completion, in one round trip.
 */
export class WriteBatch {
  private parts: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  private bindingCount = 0;

  constructor(readonly trx: Knex.Transaction) {}

  /** Queues a knex insert/update/delete (or raw) statement; flushes first when the batch would get too large. */
  async add(statement: Knex.QueryBuilder | Knex.Raw): Promise<void> {
    const native = statement.toSQL().toNative();
    if (this.bindingCount + native.bindings.length > MAX_BINDINGS) await this.flush();
    this.parts.push({ sql: native.sql, bindings: native.bindings });
    this.bindingCount += native.bindings.length;
  }

  async flush(): Promise<void> {
    const parts = this.parts;
    this.parts = [];
    this.bindingCount = 0;
    if (parts.length === 0) return;
    const connection = await (this.trx.client as ConnectionClient).acquireConnection();
    if (parts.length === 1) {
      await connection.query(parts[0]!.sql, parts[0]!.bindings as unknown[]);
      return;
    }
    const bindings: unknown[] = [];
    const ctes = parts.map((part, i) => {
      const offset = bindings.length;
      bindings.push(...part.bindings);
      return `w${i} AS (${part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
    });
    await connection.query(`WITH ${ctes.join(',\n')} SELECT 1`, bindings);
  }
}
