import type { Knex } from 'knex';
import type { DbBlock, DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';

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

/** `alias.<column>` for each block column. */
export function blockSelect(alias: string): string {
  return BLOCK_COLUMNS.map((c) => `${alias}.${c}`).join(', ');
}

/** The rows of a statement that carry a block (`blockSelect`), as `DbBlockRow`s (see `rowsCarrying`). */
function blockRowsOf(rows: ReadonlyArray<object>): DbBlockRow[] {
  return rowsCarrying<DbBlockRow>(rows, 'index_block_hash');
}

/** The block at `$1`, or at the tip's height when `$1` is null (index `blocks_canonical_height`, unique). */
const BLOCK_AT_HEIGHT = statement(
  `SELECT ${TIP_SELECT}, ${blockSelect('b')}
   FROM ${FROM_TIP}
   LEFT JOIN blocks b ON b.canonical AND b.block_height = coalesce($1::int, tip.block_height)`,
);

/** Either hash may match (a bitmap OR of `blocks_pkey` and `blocks_block_hash_index`); the highest wins. */
const BLOCK_BY_HASH = statement(
  `SELECT ${TIP_SELECT}, ${blockSelect('b')}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${blockSelect('x')} FROM blocks x
     WHERE x.canonical AND (x.index_block_hash = $1 OR x.block_hash = $1)
     ORDER BY x.block_height DESC LIMIT 1
   ) b ON true`,
);

/**
 * The tip and the canonical block at `height` (the tip's block when null), in one statement. A block without a tip
 * is found too (ETag `no-tip`).
 */
export async function getTipAndBlockAtHeight(
  db: Knex,
  height: number | null,
): Promise<{ tip: DbChainTip | null; block: DbBlockRow | null }> {
  const [row] = await query<TipColumns & { index_block_hash: string | null }>(db, BLOCK_AT_HEIGHT, [height]);
  return { tip: tipOf(row!), block: blockRowsOf([row!])[0] ?? null };
}

/** The tip and the canonical block whose block hash or index block hash is `hash` (`0x` lower-case hex). */
export async function getTipAndBlockByHash(
  db: Knex,
  hash: string,
): Promise<{ tip: DbChainTip | null; block: DbBlockRow | null }> {
  const [row] = await query<TipColumns & { index_block_hash: string | null }>(db, BLOCK_BY_HASH, [hash]);
  return { tip: tipOf(row!), block: blockRowsOf([row!])[0] ?? null };
}

/**
 * A page of `/extended/v2/blocks` with the tip, in one statement. Canonical heights are contiguous from the lowest
 * indexed one (`lowest`, from the tip's block count) to the tip, so the page is the height range from `high` (the
 * anchor, the cursor's height or the tip's, less the offset) down `limit` blocks: an index range scan on
 * `blocks_canonical_height`, never an OFFSET scan. With it come the index block hashes a whole page above and below
 * `high` (the neighbouring pages' cursors). The range is read only when `high` lies on the chain.
 *
 * $1 limit, $2 offset, $3 cursor (an index block hash) or null. Heights are computed in int8: an offset near the
 * int4 limit must not overflow.
 */
const PAGE_HEAD = `${TIP_SELECT}, c.block_height AS cursor_height, r.high, r.lowest,
          newer.index_block_hash AS newer_index_block_hash, older.index_block_hash AS older_index_block_hash`;

const PAGE_FROM = `${FROM_TIP}
   LEFT JOIN blocks c ON c.index_block_hash = $3 AND c.canonical
   CROSS JOIN LATERAL (
     SELECT CASE WHEN $3::text IS NULL THEN tip.block_height ELSE c.block_height END - $2::int8 AS high,
            tip.block_height - tip.block_count + 1::int8 AS lowest
   ) r
   LEFT JOIN blocks newer
     ON newer.canonical AND newer.block_height = r.high + $1::int8 AND r.high + $1::int8 BETWEEN r.lowest AND tip.block_height
   LEFT JOIN blocks older
     ON older.canonical AND older.block_height = r.high - $1::int8 AND r.high - $1::int8 BETWEEN r.lowest AND tip.block_height`;

/** The page's canonical blocks (`b`): the height range from `high` down `limit` blocks, on the chain only. */
const PAGE_RANGE = `b.canonical AND b.block_height BETWEEN greatest(r.high - $1::int8 + 1, r.lowest) AND r.high
       AND r.high BETWEEN r.lowest AND tip.block_height`;

const BLOCK_PAGE = statement(
  `SELECT ${PAGE_HEAD}, ${blockSelect('b')}
   FROM ${PAGE_FROM}
   LEFT JOIN blocks b ON ${PAGE_RANGE}
   ORDER BY b.block_height DESC`,
);

/**
 * `BLOCK_PAGE` as one row: the page's blocks as their kept `NakamotoBlock` texts (`blocks.v2_json`, migration 097)
 * joined by commas, newest first (the answer's `results` but for the brackets), how many blocks there are and how
 * many have a text, and the first one's index block hash and height. The api parses one row of 12 columns instead of
 * a row of 34 a block.
 */
const BLOCK_PAGE_JSON = statement(
  `SELECT ${PAGE_HEAD}, p.results, p.block_count, p.json_count, p.first_hash, p.first_height
   FROM ${PAGE_FROM}
   LEFT JOIN LATERAL (
     SELECT string_agg(b.v2_json, ',' ORDER BY b.block_height DESC) AS results, count(*)::int AS block_count,
            count(b.v2_json)::int AS json_count,
            (array_agg(b.index_block_hash ORDER BY b.block_height DESC))[1] AS first_hash,
            max(b.block_height) AS first_height
     FROM blocks b WHERE ${PAGE_RANGE}
   ) p ON true`,
);

export interface BlockPage {
  tip: DbChainTip | null;
  /** Height of the cursor's block; null without a cursor, or when no canonical block has that index block hash. */
  cursorHeight: number | null;
  /** The page's top height (the anchor less the offset), and the lowest canonical height; null without a tip. */
  high: number | null;
  lowest: number | null;
  /** Canonical blocks from `high` down, newest first; empty unless `lowest <= high <= tip`. */
  rows: DbBlockRow[];
  /** Index block hashes of the canonical blocks at `high + limit` and `high - limit`, where those lie on the chain. */
  newer: string | null;
  older: string | null;
}

type BlockPageHead = TipColumns & {
  cursor_height: number | null;
  high: string | null;
  lowest: string | null;
  newer_index_block_hash: string | null;
  older_index_block_hash: string | null;
};

/** `BlockPage` with the blocks as the kept JSON texts of the answer's `results`. */
export interface BlockJsonPage extends Omit<BlockPage, 'rows'> {
  /** The blocks' `NakamotoBlock` texts joined by commas, newest first; '' for none. */
  results: string;
  /** How many blocks the page has, and the first's index block hash and height (null for none). */
  blockCount: number;
  first: { index_block_hash: string; block_height: number } | null;
  /**
   * False when a block of the page has no kept text (a value JavaScript would write otherwise, migration 097): the
   * page must then be answered from `getCanonicalBlockPage`.
   */
  complete: boolean;
}

function headOf(first: BlockPageHead): Omit<BlockPage, 'rows'> {
  return {
    tip: tipOf(first),
    cursorHeight: first.cursor_height,
    high: first.high === null ? null : Number(first.high),
    lowest: first.lowest === null ? null : Number(first.lowest),
    newer: first.newer_index_block_hash,
    older: first.older_index_block_hash,
  };
}

/** A page of kept block texts (`BLOCK_PAGE_JSON`), one row. */
export async function getCanonicalBlockJsonPage(
  db: Knex,
  page: { limit: number; offset: number; cursor?: string },
): Promise<BlockJsonPage> {
  type Row = BlockPageHead & {
    results: string | null;
    block_count: number | null;
    json_count: number | null;
    first_hash: string | null;
    first_height: number | null;
  };
  const [row] = await query<Row>(db, BLOCK_PAGE_JSON, [page.limit, page.offset, page.cursor ?? null]);
  const blockCount = row!.block_count ?? 0;
  return {
    ...headOf(row!),
    results: row!.results ?? '',
    blockCount,
    first: row!.first_hash === null ? null : { index_block_hash: row!.first_hash, block_height: row!.first_height! },
    complete: (row!.json_count ?? 0) === blockCount,
  };
}

export async function getCanonicalBlockPage(
  db: Knex,
  page: { limit: number; offset: number; cursor?: string },
): Promise<BlockPage> {
  const rows = await query<BlockPageHead & { index_block_hash: string | null }>(db, BLOCK_PAGE, [
    page.limit,
    page.offset,
    page.cursor ?? null,
  ]);
  return { ...headOf(rows[0]!), rows: blockRowsOf(rows) };
}
