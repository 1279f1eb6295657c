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

  it("finds a block's microblocks, by the block they build on or the block that confirmed them, through an index", async () => {
    await migrateLatest(db);
    const plan = async (where: string) =>
      db.transaction(async (trx) => {
        // An empty table: make any index usable preferred to reading the table, so the plan shows whether one exists.
        await trx.raw('SET LOCAL enable_seqscan = off');
        const { rows } = (await trx.raw(`EXPLAIN SELECT 1 FROM microblocks WHERE ${where}`)) as {
          rows: Array<{ 'QUERY PLAN': string }>;
        };
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const byParent = await plan(`parent_index_block_hash = '0xaa'`);
    expect(byParent).toContain('microblocks_parent');
    expect(byParent).not.toContain('Seq Scan');
    const byConfirming = await plan(`index_block_hash = ANY('{0xbb}'::text[])`);
    expect(byConfirming).toContain('microblocks_confirmed_by');
    expect(byConfirming).not.toContain('Seq Scan');
  });
});
