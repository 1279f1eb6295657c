import type { Knex } from 'knex';
import type { DbBlock } from '@bda/db';

/** The block columns the api serves (signer signatures stay in the database). */
export type DbBlockRow = Omit<DbBlock, 'signer_signature'>;

const BLOCK_COLUMNS: string[] = [
  'index_block_hash',
  'block_hash',
  'block_height',
  'parent_index_block_hash',
  'parent_block_hash',
  'parent_microblock_hash',
  'parent_microblock_sequence',
  'burn_block_hash',
  'burn_block_height',
  'burn_block_time',
  'block_time',
  'miner_txid',
  'tenure_height',
  'cycle_number',
  'signer_bitvec',
  'tx_count',
  'execution_cost_read_count',
  'execution_cost_read_length',
  'execution_cost_runtime',
  'execution_cost_write_count',
  'execution_cost_write_length',
  'canonical',
];

/**
 * Canonical blocks with `low <= height <= high`, newest first. Canonical heights are contiguous, so a page is a
 * height range: an index range scan on `blocks_canonical_height`, never an OFFSET scan.
 */
export async function getCanonicalBlocksInHeightRange(db: Knex, low: number, high: number): Promise<DbBlockRow[]> {
  if (high < low) return [];
  return (await db('blocks')
    .select(BLOCK_COLUMNS)
    .where('canonical', true)
    .whereBetween('block_height', [low, high])
    .orderBy('block_height', 'desc')) as DbBlockRow[];
}

export async function getCanonicalBlockByHeight(db: Knex, height: number): Promise<DbBlockRow | null> {
  const row = (await db('blocks').select(BLOCK_COLUMNS).where({ canonical: true, block_height: height }).first()) as
    DbBlockRow | undefined;
  return row ?? null;
}

/** The canonical block whose block hash or index block hash is `hash` (`0x` lower-case hex). */
export async function getCanonicalBlockByHash(db: Knex, hash: string): Promise<DbBlockRow | null> {
  const row = (await db('blocks')
    .select(BLOCK_COLUMNS)
    .where('canonical', true)
    .andWhere((q) => q.where('index_block_hash', hash).orWhere('block_hash', hash))
    .orderBy('block_height', 'desc')
    .first()) as DbBlockRow | undefined;
  return row ?? null;
}

/** The height of the canonical block with this index block hash, or null when no canonical block has it. */
export async function getCanonicalHeightByIndexHash(db: Knex, indexBlockHash: string): Promise<number | null> {
  const row = (await db('blocks').select('block_height').where({ index_block_hash: indexBlockHash, canonical: true }).first()) as
    { block_height: number } | undefined;
  return row?.block_height ?? null;
}

/** Index block hashes of the canonical blocks at these heights, by height (heights without one are left out). */
export async function getCanonicalIndexHashesAtHeights(db: Knex, heights: number[]): Promise<Map<number, string>> {
  if (heights.length === 0) return new Map();
  const rows = (await db('blocks')
    .select('block_height', 'index_block_hash')
    .where('canonical', true)
    .whereIn('block_height', heights)) as Array<{ block_height: number; index_block_hash: string }>;
  return new Map(rows.map((r) => [r.block_height, r.index_block_hash]));
}
