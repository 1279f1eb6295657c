import type { DbBlockRow } from '../datastore/blocks';
import type { DbV1BlockParts, DbV1BlockRow } from '../datastore/v1-blocks';
import { toBlockResponse } from './block';
import { withResultsJson } from '../../mappers/page-json';

/** The reference API's v1 `Block`. */
export interface V1BlockResponse {
  canonical: boolean;
  height: number;
  hash: string;
  block_time: number;
  block_time_iso: string;
  tenure_height: number;
  index_block_hash: string;
  parent_block_hash: string;
  burn_block_time: number;
  burn_block_time_iso: string;
  burn_block_hash: string;
  burn_block_height: number;
  miner_txid: string;
  execution_cost_read_count: number;
  execution_cost_read_length: number;
  execution_cost_runtime: number;
  execution_cost_write_count: number;
  execution_cost_write_length: number;
  txs: string[];
  parent_microblock_hash: string;
  parent_microblock_sequence: number;
  microblocks_accepted: string[];
  microblocks_streamed: string[];
  microblock_tx_count: Record<string, number>;
}

export interface V1BlockListResponse {
  limit: number;
  offset: number;
  total: number;
  results: V1BlockResponse[];
}

const NO_MICROBLOCK = /^(0x)?0*$/;

/**
 * The parent microblock as the reference shows it: `''` and `-1` when the block confirms no microblock (the node
 * sends a zero hash then).
 */
function parentMicroblock(b: Pick<DbBlockRow, 'parent_microblock_hash' | 'parent_microblock_sequence'>): {
  parent_microblock_hash: string;
  parent_microblock_sequence: number;
} {
  return NO_MICROBLOCK.test(b.parent_microblock_hash)
    ? { parent_microblock_hash: '', parent_microblock_sequence: -1 }
    : { parent_microblock_hash: b.parent_microblock_hash, parent_microblock_sequence: b.parent_microblock_sequence };
}

/** The v1 fields of a block that come before `txs` in the reference's `Block`, and those after it. */
type V1BlockHead = Omit<V1BlockResponse, 'txs' | keyof V1BlockTail>;
type V1BlockTail = Pick<
  V1BlockResponse,
  | 'parent_microblock_hash'
  | 'parent_microblock_sequence'
  | 'microblocks_accepted'
  | 'microblocks_streamed'
  | 'microblock_tx_count'
>;

/**
 * A block row in the v1 shape but for `txs`, split around it. Times, tenure height and `miner_txid` fall back as in
 * the v2 shape (`toBlockResponse`); `microblock_tx_count` gives, for each accepted microblock, how many of the block's
 * transactions came in it (the kept counts, migration 093).
 */
function v1Parts(row: DbV1BlockRow): { head: V1BlockHead; tail: V1BlockTail } {
  const v2 = toBlockResponse(row);
  const accepted = row.accepted ?? [];
  const kept = row.microblock_tx_counts ?? {};
  const counts: Record<string, number> = {};
  for (const m of accepted) counts[m] = kept[m] ?? 0;
  return {
    head: {
      canonical: v2.canonical,
      height: v2.height,
      hash: v2.hash,
      block_time: v2.block_time,
      block_time_iso: v2.block_time_iso,
      tenure_height: v2.tenure_height,
      index_block_hash: v2.index_block_hash,
      parent_block_hash: v2.parent_block_hash,
      burn_block_time: v2.burn_block_time,
      burn_block_time_iso: v2.burn_block_time_iso,
      burn_block_hash: v2.burn_block_hash,
      burn_block_height: v2.burn_block_height,
      miner_txid: v2.miner_txid,
      execution_cost_read_count: v2.execution_cost_read_count,
      execution_cost_read_length: v2.execution_cost_read_length,
      execution_cost_runtime: v2.execution_cost_runtime,
      execution_cost_write_count: v2.execution_cost_write_count,
      execution_cost_write_length: v2.execution_cost_write_length,
    },
    tail: {
      ...parentMicroblock(row),
      microblocks_accepted: accepted,
      microblocks_streamed: row.streamed ?? [],
      microblock_tx_count: counts,
    },
  };
}

/** A block row with its transactions and microblocks in the v1 shape. */
export function toV1BlockResponse(row: DbV1BlockRow): V1BlockResponse {
  const { head, tail } = v1Parts(row);
  return { ...head, txs: row.tx_ids_json === null ? [] : (JSON.parse(row.tx_ids_json) as string[]), ...tail };
}

/**
 * The JSON text of `toV1BlockResponse(row)`, byte for byte, with the kept JSON of the transaction ids copied in as it
 * is rather than parsed and written again (a page of 20 blocks carries about 1,000 ids).
 */
export function toV1BlockJson(row: DbV1BlockRow): string {
  const { head, tail } = v1Parts(row);
  const before = JSON.stringify(head);
  return `${before.slice(0, -1)},"txs":${row.tx_ids_json ?? '[]'},${JSON.stringify(tail).slice(1)}`;
}

/**
 * A `V1BlockListResponse` whose results are the blocks' kept text parts (`DbV1BlockParts`, each block's text as
 * `toV1BlockJson` writes it), as the texts it is the concatenation of: the reply writes them in turn (a page is
 * ~90 kB; joined, the string would be flattened and copied once more before the socket write encodes it).
 */
export function v1BlockListParts(page: Omit<V1BlockListResponse, 'results'>, rows: readonly DbV1BlockParts[]): string[] {
  const parts: string[] = [`{"limit":${page.limit},"offset":${page.offset},"total":${page.total},"results":[`];
  rows.forEach((r, i) => {
    parts.push(
      i === 0 ? r.head! : `,${r.head!}`,
      r.tx_ids ?? '[]',
      r.mid!,
      ',"microblocks_accepted":',
      r.accepted ?? '[]',
      ',"microblocks_streamed":',
      r.streamed ?? '[]',
      ',"microblock_tx_count":',
      r.counts ?? '{}',
      '}',
    );
  });
  parts.push(']}');
  return parts;
}

/** The JSON text of a `V1BlockListResponse` whose results are `rows`, as `toV1BlockJson` writes each. */
export function toV1BlockListJson(page: Omit<V1BlockListResponse, 'results'>, rows: DbV1BlockRow[]): string {
  return withResultsJson({ limit: page.limit, offset: page.offset, total: page.total }, rows.map(toV1BlockJson).join(','));
}
