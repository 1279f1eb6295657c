import type { DbBurnBlockJsonRow, DbBurnBlockRow } from '../datastore/burn-blocks';
import { int } from '../../mappers/row-values';

/** The reference API's `BurnBlock`. */
export interface BurnBlockResponse {
  burn_block_time: number;
  burn_block_time_iso: string;
  burn_block_hash: string;
  burn_block_height: number;
  stacks_blocks: string[];
  avg_block_time: number;
  total_tx_count: number;
}

/**
 * A burn block with its Stacks blocks. `avg_block_time` is the mean of the gaps between consecutive Stacks blocks in
 * it (the span of their times over the number of gaps), to two decimals; 0 with a single block, as the reference.
 */
export function toBurnBlockResponse(r: DbBurnBlockRow): BurnBlockResponse {
  const time = int(r.burn_block_time);
  return {
    burn_block_time: time,
    // As the reference, the ISO form of any time, 0 (a genesis burn block) included.
    burn_block_time_iso: new Date(time * 1000).toISOString(),
    burn_block_hash: r.burn_block_hash,
    burn_block_height: r.burn_block_height,
    stacks_blocks: r.stacks_blocks ?? [],
    avg_block_time: avgBlockTime(r),
    total_tx_count: int(r.tx_count),
  };
}

/** The mean gap between a burn block's Stacks blocks (see `toBurnBlockResponse`). */
function avgBlockTime(r: { block_count: string | number | null; first_time: string | null; last_time: string | null }): number {
  const gaps = int(r.block_count) - 1;
  const avg = gaps > 0 ? (int(r.last_time) - int(r.first_time)) / gaps : 0;
  return Number(avg.toFixed(2));
}

/**
 * A burn block from its kept parts (migration 098) as the JSON text `JSON.stringify(toBurnBlockResponse(…))` gives:
 * the kept head, then the average and the count as JavaScript writes them. `r.json_head` must not be null.
 */
export function toBurnBlockJson(r: DbBurnBlockJsonRow): string {
  return `${r.json_head!}${JSON.stringify(avgBlockTime(r))},"total_tx_count":${JSON.stringify(int(r.tx_count))}}`;
}
