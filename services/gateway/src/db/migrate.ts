import type { Knex } from 'knex';
import pg from 'pg';
import * as m001 from './migrations/001_create_api_keys';
import * as m002 from './migrations/002_create_api_key_version';

const GATEWAY_SCHEMA = 'gateway';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** The gateway's migrations, in order, imported directly (no file globbing). */
const MIGRATIONS: ReadonlyArray<[string, Migration]> = [
  ['001_create_api_keys', m001],
  ['002_create_api_key_version', m002],
];

const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (m) => m[0],
  getMigration: async (m) => m[1],
};

export const migrationConfig: Knex.MigratorConfig = {
  schemaName: GATEWAY_SCHEMA,
  tableName: 'knex_migrations',
  migrationSource,
};

// Any constant: serializes replicas that start together (knex's own lock fails instead of waiting).
const ADVISORY_LOCK = 4_140_004;

/** Creates the `gateway` schema and applies pending migrations, one replica at a time. */
export async function migrateToLatest(db: Knex, databaseUrl: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [ADVISORY_LOCK]);
    await lock.query(`create schema if not exists ${GATEWAY_SCHEMA}`);
    const [, applied] = (await db.migrate.latest(migrationConfig)) as [number, string[]];
    return applied;
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [ADVISORY_LOCK]).catch(() => undefined);
    await lock.end();
  }
}

/** Rolls every gateway migration back (tests of reversibility). */
export async function rollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback(migrationConfig, true);
}
