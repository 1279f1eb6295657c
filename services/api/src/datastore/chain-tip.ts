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

/** The PoX unlock heights stored with a block (primary key lookup), or null when the block is unknown. */
export async function getPoxUnlockHeights(db: Knex, indexBlockHash: string): Promise<PoxUnlockHeights | null> {
  const row = (await db('blocks')
    .select('pox_v1_unlock_height', 'pox_v2_unlock_height', 'pox_v3_unlock_height')
    .where('index_block_hash', indexBlockHash)
    .first()) as PoxUnlockHeights | undefined;
  return row ?? null;
}

/** PoX unlock heights as the node sent them with a block (null where it sent none). */
export type PoxUnlockHeights = Pick<DbBlock, 'pox_v1_unlock_height' | 'pox_v2_unlock_height' | 'pox_v3_unlock_height'>;
