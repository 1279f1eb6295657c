import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
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

  it('makes every text column of its tables compare bytewise in a database whose default collation is linguistic', async () => {
    // A database as the postgres image or a managed server creates it: a linguistic default collation (ICU en-US).
    const server = inject('databaseUrl');
    const name = `idx_icu_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client(server);
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`);
    await admin.end();
    const url = new URL(server);
    url.pathname = `/${name}`;
    const icu = createDb({ connectionString: url.toString(), maxConnections: 2 });
    try {
      const collations = async () =>
        (
          (await icu.raw(
            `SELECT c.relname || '.' || a.attname AS "column", co.collname AS collation
               FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_collation co ON co.oid = a.attcollation
              WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
                AND c.relname NOT LIKE 'knex_migrations_indexer%'`,
          )) as { rows: Array<{ column: string; collation: string }> }
        ).rows;
      await migrateLatest(icu);
      const after = await collations();
      expect(after.map((c) => c.column)).toEqual(
        expect.arrayContaining(['txs.tx_id', 'address_txs.address', 'runes.etching_tx_id']),
      );
      expect(after.filter((c) => c.collation !== 'C')).toEqual([]);
      // The order is the bytes' order, not the locale's (en-US puts 'a-c' between 'ab' and 'ad', ignoring the hyphen).
      await icu('consumer_positions').insert(['ab', 'a-c', 'ad'].map((topic) => ({ topic, position: 1 })));
      const topics = await icu('consumer_positions').orderBy('topic').select('topic');
      expect(topics.map((r: { topic: string }) => r.topic)).toEqual(['a-c', 'ab', 'ad']);
      await icu('consumer_positions').del();
      // And back: rolled back, the columns follow the database's default again.
      await migrateRollbackAll(icu);
      await migrateLatest(icu);
      expect(await collations()).toEqual(after);
    } finally {
      await icu.destroy();
    }
  });
});
