import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';

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
