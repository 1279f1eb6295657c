import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, migrateLatest, migrateRollbackAll } from '@bda/db';
import { createTestDatabase } from '@bda/test-support';

describe('indexer migrations', () => {
  let db: Knex;

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(inject('databaseUrl'), 'idx_migrations'), maxConnections: 2 });
  });

  afterAll(async () => {
    await db.destroy();
  });

  const schema = async () =>
    (
      (await db.raw(
        `SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 'S', 'v') AND c.relname NOT LIKE 'knex_migrations_indexer%'
         ORDER BY 1`,
      )) as { rows: Array<{ name: string; kind: string }> }
    ).rows;

  it('roll back completely and apply again to the same schema', async () => {
    await migrateLatest(db);
    const applied = await schema();
    expect(applied.map((r) => r.name)).toEqual(expect.arrayContaining(['txs', 'events', 'address_txs', 'txs_contract_deploy']));
    await migrateRollbackAll(db);
    expect(await schema()).toEqual([]);
    await migrateLatest(db);
    expect(await schema()).toEqual(applied);
  });
});
