import type { DbMicroblockRow } from '../datastore/microblocks';
import { int, unixToIso } from '../../mappers/row-values';

/** The reference API's `Microblock`. */
export interface MicroblockResponse {
  canonical: boolean;
  microblock_canonical: boolean;
  microblock_hash: string;
  microblock_sequence: number;
  microblock_parent_hash: string;
  block_height: number;
  parent_block_height: number;
  parent_block_hash: string;
  parent_burn_block_hash: string;
  parent_burn_block_time: number;
  parent_burn_block_time_iso: string;
  parent_burn_block_height: number;
  block_hash: string | null;
  txs: string[];
}

/** The reference API's `MicroblockListResponse`. */
export interface MicroblockListResponse {
  limit: number;
  offset: number;
  total: number;
  results: MicroblockResponse[];
}

/**
 * A microblock as the reference shows it: `block_height` is the height of the anchored block that confirms (or would
 * confirm) it, one above the block it builds on; `block_hash` is the confirming block's hash, null until one does.
 */
export function toMicroblockResponse(r: DbMicroblockRow): MicroblockResponse {
  const parentHeight = r.parent_block_height ?? 0;
  const burnTime = int(r.parent_burn_block_time);
  return {
    canonical: r.canonical,
    microblock_canonical: r.microblock_canonical,
    microblock_hash: r.microblock_hash,
    microblock_sequence: r.microblock_sequence,
    microblock_parent_hash: r.microblock_parent_hash,
    block_height: parentHeight + 1,
    parent_block_height: parentHeight,
    parent_block_hash: r.parent_block_hash ?? '',
    parent_burn_block_hash: r.parent_burn_block_hash ?? '',
    parent_burn_block_time: burnTime,
    parent_burn_block_time_iso: unixToIso(burnTime),
    parent_burn_block_height: r.parent_burn_block_height ?? 0,
    block_hash: r.confirming_block_hash,
    txs: r.tx_ids ?? [],
  };
}
