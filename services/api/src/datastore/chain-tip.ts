import type { Knex } from 'knex';
import type { DbBlock, DbChainTip } from '@bda/db';
import { query, statement } from './read-statement';

const TIP_COLUMNS = [
  'block_height',
  'block_hash',
  'index_block_hash',
  'burn_block_height',
  'block_count',
  'microblock_hash',
  'microblock_sequence',
] as const;

/**
 * The FROM of a statement that answers a chain read together with the tip its ETag names (one statement, one
 * snapshot): always one row, with the tip's columns null before the first block (`chain_tip` holds at most one row).
 * The statement joins its own reads to it and selects `TIP_SELECT`.
 */
export const FROM_TIP = '(SELECT 1) one LEFT JOIN chain_tip tip ON true';

/** The tip's columns as `tip_<column>` (read back by `tipOf`). */
export const TIP_SELECT = TIP_COLUMNS.map((c) => `tip.${c} AS tip_${c}`).join(', ');

/** The `tip_<column>` columns of a row, null when there was no tip. */
export type TipColumns = { [K in keyof DbChainTip as `tip_${K}`]: DbChainTip[K] | null };

/** The tip a row carries (`TIP_SELECT`), or `null` before the first block. */
export function tipOf(row: TipColumns): DbChainTip | null {
  if (row.tip_index_block_hash === null) return null;
  return {
    block_height: row.tip_block_height!,
    block_hash: row.tip_block_hash!,
    index_block_hash: row.tip_index_block_hash,
    burn_block_height: row.tip_burn_block_height!,
    block_count: row.tip_block_count!,
    microblock_hash: row.tip_microblock_hash,
    microblock_sequence: row.tip_microblock_sequence,
  };
}

const TIP_WITH_UNLOCK_HEIGHTS = statement(
  `SELECT ${TIP_COLUMNS.map((c) => `t.${c}`).join(', ')},
          b.pox_v1_unlock_height, b.pox_v2_unlock_height, b.pox_v3_unlock_height
   FROM chain_tip t LEFT JOIN blocks b ON b.index_block_hash = t.index_block_hash
   LIMIT 1`,
);

/**
 * The tip with the PoX unlock heights stored with its block, in one query (the status endpoint's whole read; clients
 * poll it). `unlock` is null before the first block.
 */
export async function getChainTipWithUnlockHeights(
  db: Knex,
): Promise<{ tip: DbChainTip | null; unlock: PoxUnlockHeights | null }> {
  const [row] = await query<DbChainTip & PoxUnlockHeights>(db, TIP_WITH_UNLOCK_HEIGHTS, []);
  if (!row) return { tip: null, unlock: null };
  const { pox_v1_unlock_height, pox_v2_unlock_height, pox_v3_unlock_height, ...tip } = row;
  return { tip, unlock: { pox_v1_unlock_height, pox_v2_unlock_height, pox_v3_unlock_height } };
}

/** PoX unlock heights as the node sent them with a block (null where it sent none). */
export type PoxUnlockHeights = Pick<DbBlock, 'pox_v1_unlock_height' | 'pox_v2_unlock_height' | 'pox_v3_unlock_height'>;
