import type { NakamotoBlockResponse } from '../../api-types';
import type { DbBlockRow } from '../datastore/blocks';
import { int, unixToIso } from '../../mappers/row-values';

/**
 * A block row in the reference API's `NakamotoBlock` shape. As the reference does: `block_time` falls back to the
 * burn block time before Nakamoto (no block time of its own); `tenure_height` falls back to the height for
 * Stacks 2.x blocks (one block per tenure) and -1 for a Nakamoto block whose tenure height is unknown; a missing
 * `miner_txid` is `''`.
 */
export function toBlockResponse(b: DbBlockRow): NakamotoBlockResponse {
  const burnBlockTime = int(b.burn_block_time);
  const ownTime = int(b.block_time);
  const blockTime = ownTime > 0 ? ownTime : burnBlockTime;
  return {
    canonical: b.canonical,
    height: b.block_height,
    hash: b.block_hash,
    block_time: blockTime,
    block_time_iso: unixToIso(blockTime),
    tenure_height: b.tenure_height ?? (b.signer_bitvec ? -1 : b.block_height),
    index_block_hash: b.index_block_hash,
    parent_block_hash: b.parent_block_hash,
    parent_index_block_hash: b.parent_index_block_hash,
    burn_block_time: burnBlockTime,
    burn_block_time_iso: unixToIso(burnBlockTime),
    burn_block_hash: b.burn_block_hash,
    burn_block_height: b.burn_block_height,
    miner_txid: b.miner_txid ?? '',
    tx_count: b.tx_count,
    execution_cost_read_count: int(b.execution_cost_read_count),
    execution_cost_read_length: int(b.execution_cost_read_length),
    execution_cost_runtime: int(b.execution_cost_runtime),
    execution_cost_write_count: int(b.execution_cost_write_count),
    execution_cost_write_length: int(b.execution_cost_write_length),
  };
}
