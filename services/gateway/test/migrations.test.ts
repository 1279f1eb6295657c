import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Knex } from 'knex';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { createDb } from '@bda/db';
import { migrateToLatest, rollbackAll } from '../src/db/migrate';

describe('gateway migrations', () => {
  let url: string;
  let db: Knex;

  beforeAll(async () => {
    url = await createTestDatabase(testInfra().databaseUrl, 'gw_migrations');
    db = createDb({ connectionString: url, maxConnections: 2 });
  });

  afterAll(async () => {
    await db?.destroy();
  });

  const tables = async () =>
    (
      (await db.raw(`select table_name from information_schema.tables where table_schema = 'gateway' order by 1`)) as {
        rows: Array<{ table_name: string }>;
      }
    ).rows.map((r) => r.table_name);

  it('applies in the gateway schema with its own migrations table, and is idempotent', async () => {
    expect(await migrateToLatest(db, url)).toEqual(['001_create_api_keys', '002_create_api_key_version']);
    expect(await migrateToLatest(db, url)).toEqual([]);
    expect(await tables()).toEqual(['api_key_version', 'api_keys', 'knex_migrations', 'knex_migrations_lock']);
  });

  it('comments every column of its tables', async () => {
    const { rows } = (await db.raw(`
      select c.table_name, c.column_name from information_schema.columns c
      where c.table_schema = 'gateway' and c.table_name in ('api_keys', 'api_key_version')
        and col_description(format('gateway.%I', c.table_name)::regclass, c.ordinal_position) is null`)) as {
      rows: unknown[];
    };
    expect(rows).toEqual([]);
  });

  it('bumps the key version on every change to the keys', async () => {
    const version = async () => Number(((await db('gateway.api_key_version').first('version')) as { version: string }).version);
    const before = await version();
    await db('gateway.api_keys').insert({ prefix: 'bda_test0000', key_hash: Buffer.alloc(32, 1), owner: 'x' });
    await db('gateway.api_keys').where({ prefix: 'bda_test0000' }).update({ revoked_at: db.fn.now() });
    expect(await version()).toBe(before + 2);
  });

  it('rolls back completely and applies again', async () => {
    await rollbackAll(db);
    expect(await tables()).toEqual(['knex_migrations', 'knex_migrations_lock']);
    expect(await migrateToLatest(db, url)).toHaveLength(2);
  });
});
