import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
import { blockSelect, type DbBlockRow } from './blocks';

/**
 * A block with what the reference API's v1 `Block` adds to it: its transaction ids in the reference's order as the
 * JSON text of an array (migration 093: anchored ones first, then microblock ones from the newest microblock; each part
 * from the highest position down), how many of them each microblock carried, the microblocks it confirmed (accepted)
 * and those streamed on top of it that were not orphaned.
 */
export type DbV1BlockRow = DbBlockRow & {
  /** `block_tx_ids.tx_ids`: a JSON array of ids, copied into answers as it is; null for a block without transactions. */
  tx_ids_json: string | null;
  /** `block_tx_ids.microblock_tx_counts`: microblock hash → how many of the block's transactions it carried. */
  microblock_tx_counts: Record<string, number> | null;
  accepted: string[] | null;
  streamed: string[] | null;
};

/**
 * The parts of a v1 block `b`: its kept list of transaction ids (`block_tx_ids`, by primary key: one row, not the
 * block's transactions), the microblocks it confirmed (index `microblocks_confirmed_by`) and the unorphaned ones built
 * on it (index `microblocks_parent`).
 */
const V1_BLOCK_PARTS = `LEFT JOIN LATERAL (
     SELECT l.tx_ids, l.microblock_tx_counts FROM block_tx_ids l WHERE l.index_block_hash = b.index_block_hash OFFSET 0
   ) tx ON true
   LEFT JOIN LATERAL (
     SELECT array_agg(m.microblock_hash ORDER BY m.microblock_sequence) AS accepted
     FROM microblocks m WHERE m.index_block_hash = b.index_block_hash AND m.canonical
   ) acc ON true
   LEFT JOIN LATERAL (
     SELECT array_agg(m.microblock_hash ORDER BY m.microblock_sequence) AS streamed
     FROM microblocks m WHERE m.parent_index_block_hash = b.index_block_hash AND m.microblock_canonical
   ) st ON true`;

const V1_PARTS_SELECT = 'tx.tx_ids AS tx_ids_json, tx.microblock_tx_counts, acc.accepted, st.streamed';

/** One canonical block found by `where` (over `x`), the highest if several match, with its v1 parts and the tip. */
function oneBlock(where: string): ReturnType<typeof statement> {
  return statement(
    `SELECT ${TIP_SELECT}, ${blockSelect('b')}, ${V1_PARTS_SELECT}
     FROM ${FROM_TIP}
     LEFT JOIN LATERAL (
       SELECT ${blockSelect('x')} FROM blocks x WHERE x.canonical AND ${where} ORDER BY x.block_height DESC LIMIT 1
     ) b ON true
     ${V1_BLOCK_PARTS}`,
  );
}

/** How `/extended/v1/block/…` names a block. */
export type V1BlockKey =
  | { kind: 'height'; height: number }
  | { kind: 'hash'; hash: string }
  | { kind: 'burnHeight'; height: number }
  | { kind: 'burnHash'; hash: string };

const BY_KEY: Record<V1BlockKey['kind'], ReturnType<typeof statement>> = {
  // `blocks_canonical_height`
  height: oneBlock('x.block_height = $1::int'),
  // The reference's v1 lookup is by block hash only (`blocks_block_hash_index`).
  hash: oneBlock('x.block_hash = $1::text'),
  // The newest canonical block of the burn block (`blocks_canonical_burn_height`, `blocks_canonical_burn_hash`).
  burnHeight: oneBlock('x.burn_block_height = $1::int'),
  burnHash: oneBlock('x.burn_block_hash = $1::text'),
};

type V1Row = TipColumns & { index_block_hash: string | null };

export async function getV1Block(db: Knex, key: V1BlockKey): Promise<{ tip: DbChainTip | null; block: DbV1BlockRow | null }> {
  const value = key.kind === 'height' || key.kind === 'burnHeight' ? key.height : key.hash;
  const [row] = await query<V1Row>(db, BY_KEY[key.kind], [value]);
  return { tip: tipOf(row!), block: rowsCarrying<DbV1BlockRow>([row!], 'index_block_hash')[0] ?? null };
}

/** The canonical blocks of a v1 page, `b`: the height range from the tip less `$2` (offset) down `$1` (limit). */
const V1_PAGE_RANGE = `FROM ${FROM_TIP}
   CROSS JOIN LATERAL (
     SELECT tip.block_height - $2::int8 AS high, tip.block_height - tip.block_count + 1::int8 AS lowest
   ) r
   LEFT JOIN blocks b
     ON b.canonical AND b.block_height BETWEEN greatest(r.high - $1::int8 + 1, r.lowest) AND r.high`;

/**
 * A page of `/extended/v1/block`: canonical heights are contiguous from the lowest indexed one (from the tip's block
 * count) to the tip, so the page is the height range from the tip less `$2` (offset) down `$1` (limit) blocks
 * (`blocks_canonical_height`), each with its v1 parts. Heights in int8, so a huge offset cannot overflow.
 */
const V1_BLOCK_PAGE = statement(
  `SELECT ${TIP_SELECT}, ${blockSelect('b')}, ${V1_PARTS_SELECT}
   ${V1_PAGE_RANGE}
   ${V1_BLOCK_PARTS}
   ORDER BY b.block_height DESC`,
);

export async function getV1BlockPage(
  db: Knex,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; rows: DbV1BlockRow[] }> {
  const rows = await query<V1Row>(db, V1_BLOCK_PAGE, [page.limit, page.offset]);
  return { tip: tipOf(rows[0]!), rows: rowsCarrying<DbV1BlockRow>(rows, 'index_block_hash') };
}

/**
 * The whole v1 `Block` text of a block `b` as `toV1BlockJson` writes it, from kept texts (ADR 0042): the block's own
 * parts (`blocks.v1_json`, migration 107, generated), its ids (`block_tx_ids.tx_ids`) and its microblocks written
 * here as `JSON.stringify` writes them (hex hashes: `to_json` escapes nothing in them; counts as the kept jsonb
 * numbers, 0 for an accepted microblock without a count). Null when the block's own parts are null (a value
 * JavaScript would write otherwise): such a block is answered from its columns.
 */
const V1_JSON_PARTS = `LEFT JOIN LATERAL (
     SELECT l.tx_ids, l.microblock_tx_counts FROM block_tx_ids l WHERE l.index_block_hash = b.index_block_hash OFFSET 0
   ) tx ON true
   LEFT JOIN LATERAL (
     SELECT '[' || string_agg(to_json(m.microblock_hash)::text, ',' ORDER BY m.microblock_sequence) || ']' AS accepted,
            '{' || string_agg(to_json(m.microblock_hash)::text || ':'
                              || coalesce(tx.microblock_tx_counts ->> m.microblock_hash, '0'), ','
                              ORDER BY m.microblock_sequence) || '}' AS counts
     FROM microblocks m WHERE m.index_block_hash = b.index_block_hash AND m.canonical
   ) acc ON true
   LEFT JOIN LATERAL (
     SELECT '[' || string_agg(to_json(m.microblock_hash)::text, ',' ORDER BY m.microblock_sequence) || ']' AS streamed
     FROM microblocks m WHERE m.parent_index_block_hash = b.index_block_hash AND m.microblock_canonical
   ) st ON true`;

// One `concat` (one copy of each part) rather than a chain of `||` (each copying the text so far, ids included).
const V1_JSON_TEXT = `CASE WHEN b.v1_json IS NOT NULL THEN concat(b.v1_json[1], coalesce(tx.tx_ids, '[]'), b.v1_json[2],
     ',"microblocks_accepted":', coalesce(acc.accepted, '[]'), ',"microblocks_streamed":', coalesce(st.streamed, '[]'),
     ',"microblock_tx_count":', coalesce(acc.counts, '{}'), '}') END`;

/** `oneBlock` as the block's whole v1 text (`V1_JSON_TEXT`) and its index block hash. */
function oneBlockJson(where: string): ReturnType<typeof statement> {
  return statement(
    `SELECT ${TIP_SELECT}, b.index_block_hash, ${V1_JSON_TEXT} AS v1_text
     FROM ${FROM_TIP}
     LEFT JOIN LATERAL (
       SELECT x.index_block_hash, x.v1_json FROM blocks x WHERE x.canonical AND ${where}
       ORDER BY x.block_height DESC LIMIT 1
     ) b ON true
     ${V1_JSON_PARTS}`,
  );
}

const BY_KEY_JSON: Record<V1BlockKey['kind'], ReturnType<typeof statement>> = {
  height: oneBlockJson('x.block_height = $1::int'),
  hash: oneBlockJson('x.block_hash = $1::text'),
  burnHeight: oneBlockJson('x.burn_block_height = $1::int'),
  burnHash: oneBlockJson('x.burn_block_hash = $1::text'),
};

/**
 * The block `getV1Block` finds, as its v1 text (`text`, null when the block has no kept parts: then `getV1Block`'s
 * columns must answer it), and whether there is one.
 */
export async function getV1BlockJson(
  db: Knex,
  key: V1BlockKey,
): Promise<{ tip: DbChainTip | null; found: boolean; text: string | null }> {
  const value = key.kind === 'height' || key.kind === 'burnHeight' ? key.height : key.hash;
  const [row] = await query<V1Row & { v1_text: string | null }>(db, BY_KEY_JSON[key.kind], [value]);
  return { tip: tipOf(row!), found: row!.index_block_hash !== null, text: row!.v1_text };
}

/** A block of a v1 page as its kept text parts (see `V1_JSON_TEXT`); the api writes them one after the other. */
export interface DbV1BlockParts {
  /** `blocks.v1_json[1]`: `{"canonical":…` up to `"txs":`; null when the block has no kept parts. */
  head: string | null;
  /** `block_tx_ids.tx_ids`; null for a block without transactions (`[]`). */
  tx_ids: string | null;
  /** `blocks.v1_json[2]`: `,"parent_microblock_hash":…,"parent_microblock_sequence":…`. */
  mid: string | null;
  /** The accepted and streamed microblocks as JSON arrays and the counts as a JSON object; null for none. */
  accepted: string | null;
  streamed: string | null;
  counts: string | null;
}

/**
 * `V1_BLOCK_PAGE` as the kept text parts of each block (`DbV1BlockParts`), newest first: the same height range on
 * `blocks_canonical_height` and, per block, the same probes (its ids by key, its microblocks on
 * `microblocks_confirmed_by` and `microblocks_parent`). Text columns only: PostgreSQL neither joins them (a
 * `string_agg` of `concat`s cost more of its CPU than the 20 rows' output, measured) nor writes numbers, and
 * node-postgres parses no array.
 */
const V1_BLOCK_PAGE_PARTS = statement(
  `SELECT ${TIP_SELECT}, b.index_block_hash, b.v1_json[1] AS head, tx.tx_ids, b.v1_json[2] AS mid,
          acc.accepted, acc.counts, st.streamed
   ${V1_PAGE_RANGE}
   ${V1_JSON_PARTS}
   ORDER BY b.block_height DESC`,
);

/**
 * A page of `/extended/v1/block` as the kept text parts of its blocks; `complete` is false when a block of the page
 * has no kept parts (the page must then be answered from `getV1BlockPage`).
 */
export async function getV1BlockPartsPage(
  db: Knex,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; rows: DbV1BlockParts[]; complete: boolean }> {
  const rows = await query<V1Row & DbV1BlockParts>(db, V1_BLOCK_PAGE_PARTS, [page.limit, page.offset]);
  const blocks = rowsCarrying<V1Row & DbV1BlockParts>(rows, 'index_block_hash');
  return { tip: tipOf(rows[0]!), rows: blocks, complete: blocks.every((b) => b.head !== null && b.mid !== null) };
}
