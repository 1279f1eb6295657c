import knex, { type Knex } from 'knex';
import pg from 'pg';
import { knexLog, type KnexLogger } from '@bda/common';

// Return int8 / numeric as strings (exact); never let pg turn them into JS numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export interface CreateDbOptions {
  connectionString: string;
  /** Pool size. */
  maxConnections?: number;
  /**
   * Connections kept open however long they idle (default 0). A new connection costs a backend start and loses the
   * session's prepared statements and catalog caches: the indexer keeps one, so a block after a quiet spell (ten
   * minutes between Stacks 2.x blocks) does not pay for them.
   */
  minConnections?: number;
  /** How long a connection beyond `minConnections` may idle before it is closed (default 30 s). */
  idleTimeoutMs?: number;
  /** Application name shown in pg_stat_activity. */
  applicationName?: string;
  /** Statement timeout in ms (api: bounded; indexer: none). */
  statementTimeoutMs?: number;
  /** Where knex's own warnings go, as JSON lines (`knexLog`); without one, knex writes them to the console. */
  logger?: KnexLogger;
  /**
   * `force_custom_plan`: every execution of a prepared statement is planned for the tables as they are now
   * (`plan_cache_mode`). PostgreSQL otherwise settles on a generic plan after five executions and keeps it until an
   * ANALYZE invalidates it. For a writer whose tables grow from nothing faster than autovacuum analyzes them (an
   * indexer syncing, a fresh system), that plan is made for tiny tables: a hashed subplan that reads every row of
   * `txs` on each mempool announcement, a sequential scan of `mempool_txs` on each block. See ADR 0013.
   *
   * `force_generic_plan`: each prepared statement is planned once per connection (and again after an ANALYZE of
   * its tables), never per execution: for a reader whose statements are fixed texts written for their generic plan
   * (the api's chain reads, `services/api/src/datastore/read-statement.ts`), where planning cost more than executing.
   */
  planCacheMode?: 'auto' | 'force_custom_plan' | 'force_generic_plan';
}

/** A knex instance on PostgreSQL with exact numeric handling. */
export function createDb(opts: CreateDbOptions): Knex {
  return knex({
    client: 'pg',
    connection: {
      connectionString: opts.connectionString,
      application_name: opts.applicationName,
      statement_timeout: opts.statementTimeoutMs,
      ...(opts.planCacheMode ? { options: `-c plan_cache_mode=${opts.planCacheMode}` } : {}),
    },
    pool: { min: opts.minConnections ?? 0, max: opts.maxConnections ?? 10, idleTimeoutMillis: opts.idleTimeoutMs ?? 30_000 },
    acquireConnectionTimeout: 10_000,
    ...(opts.logger ? { log: knexLog(opts.logger) } : {}),
  });
}

/** True when PostgreSQL answers. */
export async function isDbReachable(db: Knex): Promise<boolean> {
  try {
    await db.raw('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
