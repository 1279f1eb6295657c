import type { Knex } from 'knex';

/**
 * Every text column of the indexer's tables compares byte by byte (`COLLATE "C"`), whatever the database's default.
 *
 * These columns hold hashes, transaction ids, addresses, contract ids and names: identifiers, not prose. Under a
 * linguistic collation (the `postgres` image and most managed servers create databases in `en_US.UTF-8`) every
 * comparison in their indexes goes through the locale's rules. A 600-block catch-up of 50 transactions a block took
 * 5.6–8.4 ms a block in an ICU `en-US` database against 4.6 in a `C` one (bench/ingest, seventh session). Byte order
 * is also the one order that is the same on every server, so pages and cursors do not depend on where the data lives.
 *
 * Only the collation changes: PostgreSQL keeps the rows as they are and rebuilds the indexes over these columns (on a
 * large database that takes a while, once). In a `C` database nothing changes but the catalog.
 */
const TABLES = [
  'consumer_positions',
  'dead_letters',
  'parked_blocks',
  'chain_tip',
  'blocks',
  'burn_blocks',
  'burn_block_rewards',
  'burn_block_slot_holders',
  'txs',
  'events',
  'microblocks',
  'microblock_txs',
  'mempool_txs',
  'miner_rewards',
  'attachments',
  'address_txs',
  'address_tx_counts',
  'rune_blocks',
  'runes',
  'rune_txs',
  'rune_outputs',
  'rune_taproot_outputs',
  'rune_activity',
  'rune_addresses',
  'rune_balances',
];

interface TextColumn {
  table: string;
  column: string;
  type: string;
}

/** Text, varchar and arrays of them in `TABLES`, of the given collation. */
async function textColumns(knex: Knex, collation: string): Promise<TextColumn[]> {
  const { rows } = (await knex.raw(
    `SELECT c.relname AS "table", a.attname AS "column", format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_collation co ON co.oid = a.attcollation
      WHERE n.nspname = current_schema() AND c.relname = ANY(?::text[]) AND a.attnum > 0 AND NOT a.attisdropped
        AND co.collname = ?
      ORDER BY c.relname, a.attnum`,
    [TABLES, collation],
  )) as { rows: TextColumn[] };
  return rows;
}

/** One `ALTER TABLE` per table, so each of its indexes is rebuilt once. */
async function setCollation(knex: Knex, columns: TextColumn[], collation: string): Promise<void> {
  const byTable = new Map<string, TextColumn[]>();
  for (const c of columns) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c]);
  for (const [table, cols] of byTable) {
    const clauses = cols.map((c) => `ALTER COLUMN "${c.column}" TYPE ${c.type} COLLATE "${collation}"`);
    await knex.raw(`ALTER TABLE "${table}" ${clauses.join(', ')}`);
  }
}

export async function up(knex: Knex): Promise<void> {
  await setCollation(knex, await textColumns(knex, 'default'), 'C');
}

export async function down(knex: Knex): Promise<void> {
  await setCollation(knex, await textColumns(knex, 'C'), 'default');
}
