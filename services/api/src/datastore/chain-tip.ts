import type { Knex } from 'knex';
import type { DbBlock, DbChainTip } from '@bda/db';

/** The canonical tip (one-row table maintained by the indexer), or `null` before the first block. */
export async function getChainTip(db: Knex): Promise<DbChainTip | null> {
  const row = await db<DbChainTip>('chain_tip')
    .select(
      'block_height',
      'block_hash',
      'index_block_hash',
      'burn_block_height',
      'block_count',
      'microblock_hash',
      'microblock_sequence',
    )
    .first();
  return row ?? null;
}

/**
 * The tip with the PoX unlock heights stored with its block, in one query (the status endpoint's whole read; clients
 * poll it). `unlock` is null before the first block.
 */
export async function getChainTipWithUnlockHeights(
  db: Knex,
): Promise<{ tip: DbChainTip | null; unlock: PoxUnlockHeights | null }> {
  const row = (await db('chain_tip as t')
    .leftJoin('blocks as b', 'b.index_block_hash', 't.index_block_hash')
    .select(
      't.block_height',
      't.block_hash',
      't.index_block_hash',
      't.burn_block_height',
      't.block_count',
      't.microblock_hash',
      't.microblock_sequence',
      'b.pox_v1_unlock_height',
      'b.pox_v2_unlock_height',
      'b.pox_v3_unlock_height',
    )
    .first()) as (DbChainTip & PoxUnlockHeights) | undefined;
  if (!row) return { tip: null, unlock: null };
  const { pox_v1_unlock_height, pox_v2_unlock_height, pox_v3_unlock_height, ...tip } = row;
  return { tip, unlock: { pox_v1_unlock_height, pox_v2_unlock_height, pox_v3_unlock_height } };
}

/** PoX unlock heights as the node sent them with a block (null where it sent none). */
export type PoxUnlockHeights = Pick<DbBlock, 'pox_v1_unlock_height' | 'pox_v2_unlock_height' | 'pox_v3_unlock_height'>;
