import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
import { ServiceUnavailableError } from '@bda/common';
import { query as queryOnKnex } from '../../datastore/read-statement';
// Side effect relied on: @bda/db makes pg return int8 / numeric as strings (exact amounts) for every pool.
import '@bda/db';

/** Where the `/runes/v1` statements run: one read statement, `?` placeholders as in knex, rows as objects. */
export interface RunesDb {
  query<T>(sql: string, values: unknown[]): Promise<T[]>;
  /** Ends the connections (a no-op for a borrowed pool). */
  close(): Promise<void>;
}

export interface RunesPoolOptions {
  connectionString: string;
  /** Connections in this pool (per process). */
  max: number;
  applicationName?: string;
  /** Per-statement timeout in ms. */
  statementTimeoutMs?: number;
  /** How long a query may wait for a free connection before it fails with a 503. */
  connectTimeoutMs?: number;
}

/**
 * The rune reads' own pool of plain `pg` connections whose sessions use generic plans
 * (`plan_cache_mode = force_generic_plan`). Every statement is a named prepared statement, parsed once per
 * connection. PostgreSQL would otherwise plan it again on every execution: these statements are index-range reads
 * whose generic plan is estimated dearer than a custom one (an unknown range is guessed at more rows than a bound
 * one), so the plan cache keeps choosing custom plans — and planning took twice as long as executing. The generic plan
 * is the same index-range plan (`EXPLAIN` per statement in the api README). The setting is per connection: the api
 * process gives it to knex's pool too, where the `/extended` reads run (`datastore/read-statement.ts`).
 */
export function createRunesDb(opts: RunesPoolOptions): RunesDb & { pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max,
    application_name: opts.applicationName,
    statement_timeout: opts.statementTimeoutMs,
    options: '-c plan_cache_mode=force_generic_plan',
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that breaks (server restart) is dropped by the pool; the next query opens another.
  pool.on('error', () => undefined);
  return {
    pool,
    async query<T>(sql: string, values: unknown[]): Promise<T[]> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw connectFailure(err);
      }
      let broken: Error | undefined;
      // While a client is checked out the pool does not listen to its errors: a connection that ends between the
      // query's answer and the release would emit an 'error' nobody handles, which ends the process.
      const onError = (err: Error) => (broken = err);
      client.on('error', onError);
      try {
        const prepared = toPrepared(sql);
        const result = await client.query<T & pg.QueryResultRow>({ name: prepared.name, text: prepared.text, values });
        return result.rows;
      } catch (err) {
        // A connection-level failure (not an SQL error) must not go back to the pool.
        if (!(err instanceof pg.DatabaseError)) broken = err as Error;
        throw err;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

/** pg-pool's own "no connection in time" error has no code; anything else (ECONNREFUSED…) keeps its own. */
function connectFailure(err: unknown): unknown {
  const e = err as { code?: string; message?: string } | null;
  if (e && typeof e === 'object' && e.code === undefined && /timeout/i.test(e.message ?? '')) {
    return new ServiceUnavailableError('the database is unavailable; try again shortly');
  }
  return err;
}

/**
 * The same statements on connections of a knex pool (PostgreSQL's default plan choice). For callers that have no
 * dedicated pool (tests of other routes); the api process uses `createRunesDb`.
 */
export function knexRunesDb(db: Knex): RunesDb {
  return {
    query: <T>(sql: string, values: unknown[]): Promise<T[]> => queryOnKnex<T>(db, toPrepared(sql), values),
    close: async () => undefined,
  };
}

const cache = new Map<string, { name: string; text: string }>();

/** `?` → `$n`; the name is a digest of the text, so the same text always maps to the same statement. */
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
