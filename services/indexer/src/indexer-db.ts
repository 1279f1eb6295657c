import type { Knex } from 'knex';
import { createDb, type CreateDbOptions } from '@bda/db';

/** The indexer's database: the pool its appliers write through, set up for how the indexer uses it. */
export function createIndexerDb(connectionString: string, logger?: CreateDbOptions['logger']): Knex {
  return createDb({
    connectionString,
    applicationName: 'indexer',
    maxConnections: 5,
    // The connection the applier writes on stays open between blocks, with its prepared statements.
    minConnections: 1,
    // Its statements are prepared once per connection, and its tables grow faster than autovacuum analyzes them
    // while it syncs: each execution is planned for the tables as they are (ADR 0013).
    planCacheMode: 'force_custom_plan',
    logger,
  });
}
