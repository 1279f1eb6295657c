import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb, MIGRATIONS, migrateLatest, migrateRollbackAll } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';

describe('indexer migrations', () => {
  let db: Knex;

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'idx_migrations'), maxConnections: 2 });
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
    const server = testInfra().databaseUrl;
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
                AND c.relname NOT LIKE 'knex_migrations_indexer%'
              ORDER BY 1`,
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
  it('keeps in an address history only the parties the reference API links, and puts the others back on rollback', async () => {
    await migrateLatest(db);
    const migration = MIGRATIONS.find(([name]) => name === '024-stx-address-history')![1];
    const block = { index_block_hash: '0xb1', block_height: 5, canonical: true };
    await db('txs').insert({
      ...block,
      tx_id: '0x01',
      block_hash: '0xbb',
      burn_block_time: 1,
      burn_block_height: 1,
      parent_index_block_hash: '0xb0',
      tx_index: 0,
      raw_tx: Buffer.from([0]),
      type_id: 'contract_call',
      status: 'success',
      raw_result: '0x0703',
      sender_address: 'SPSENDER',
      sponsored: false,
      nonce: 0,
      fee_rate: '0',
      anchor_mode: 'any',
      post_condition_mode: 'allow',
      post_conditions: '[]',
      payload: '{}',
      contract_id: 'SPSENDER.token',
      event_count: 4,
    });
    const event = (event_index: number, type: string, parties: Record<string, string>) => ({
      ...block,
      event_index,
      tx_id: '0x01',
      tx_index: 0,
      type,
      committed: true,
      ...parties,
    });
    await db('events').insert([
      event(0, 'stx_transfer_event', { sender: 'SPSENDER', recipient: 'SPSTX' }),
      event(1, 'ft_transfer_event', { sender: 'SPSENDER', recipient: 'SPFT' }),
      event(2, 'nft_mint_event', { recipient: 'SPNFT' }),
      event(3, 'stx_lock_event', { locked_address: 'SPLOCK' }),
    ]);
    // The history as the earlier rule built it: every event party.
    const principals = ['SPSENDER', 'SPSENDER.token', 'SPSTX', 'SPFT', 'SPNFT', 'SPLOCK'];
    await db('address_txs').insert(
      principals.map((address) => ({
        address,
        block_height: 5,
        microblock_sequence: 2147483647,
        tx_index: 0,
        tx_id: '0x01',
        index_block_hash: '0xb1',
      })),
    );
    await db('address_tx_counts').insert(principals.map((address) => ({ address, tx_count: address === 'SPSENDER' ? 3 : 1 })));
    const history = async () => ({
      rows: ((await db('address_txs').orderBy('address').select('address')) as Array<{ address: string }>).map((r) => r.address),
      counts: Object.fromEntries(
        ((await db('address_tx_counts').select('address', 'tx_count')) as Array<{ address: string; tx_count: number }>).map(
          (r) => [r.address, r.tx_count],
        ),
      ),
    });
    try {
      await migration.up(db);
      expect(await history()).toEqual({
        rows: ['SPSENDER', 'SPSENDER.token', 'SPSTX'],
        counts: { SPSENDER: 3, 'SPSENDER.token': 1, SPSTX: 1, SPFT: 0, SPNFT: 0, SPLOCK: 0 },
      });
      await migration.down(db);
      expect(await history()).toEqual({
        rows: ['SPFT', 'SPLOCK', 'SPNFT', 'SPSENDER', 'SPSENDER.token', 'SPSTX'],
        counts: { SPSENDER: 3, 'SPSENDER.token': 1, SPSTX: 1, SPFT: 1, SPNFT: 1, SPLOCK: 1 },
      });
    } finally {
      await Promise.all(['address_tx_counts', 'address_txs', 'events', 'txs'].map((t) => db(t).del()));
    }
  });
});
