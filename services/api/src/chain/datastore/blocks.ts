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
const BLOCK_PAGE = statement(
  `SELECT ${TIP_SELECT}, c.block_height AS cursor_height, r.high, r.lowest,
          newer.index_block_hash AS newer_index_block_hash, older.index_block_hash AS older_index_block_hash,
          ${blockSelect('b')}
   FROM ${FROM_TIP}
   LEFT JOIN blocks c ON c.index_block_hash = $3 AND c.canonical
   CROSS JOIN LATERAL (
     SELECT CASE WHEN $3::text IS NULL THEN tip.block_height ELSE c.block_height END - $2::int8 AS high,
            tip.block_height - tip.block_count + 1::int8 AS lowest
   ) r
   LEFT JOIN blocks newer
     ON newer.canonical AND newer.block_height = r.high + $1::int8 AND r.high + $1::int8 BETWEEN r.lowest AND tip.block_height
   LEFT JOIN blocks older
     ON older.canonical AND older.block_height = r.high - $1::int8 AND r.high - $1::int8 BETWEEN r.lowest AND tip.block_height
   LEFT JOIN blocks b
     ON b.canonical AND b.block_height BETWEEN greatest(r.high - $1::int8 + 1, r.lowest) AND r.high
       AND r.high BETWEEN r.lowest AND tip.block_height
   ORDER BY b.block_height DESC`,
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

type BlockPageRow = TipColumns & {
  cursor_height: number | null;
  high: string | null;
  lowest: string | null;
  newer_index_block_hash: string | null;
  older_index_block_hash: string | null;
  index_block_hash: string | null;
};

export async function getCanonicalBlockPage(
  db: Knex,
  page: { limit: number; offset: number; cursor?: string },
): Promise<BlockPage> {
  const rows = await query<BlockPageRow>(db, BLOCK_PAGE, [page.limit, page.offset, page.cursor ?? null]);
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    cursorHeight: first.cursor_height,
    high: first.high === null ? null : Number(first.high),
    lowest: first.lowest === null ? null : Number(first.lowest),
    rows: blockRowsOf(rows),
    newer: first.newer_index_block_hash,
    older: first.older_index_block_hash,
  };
}
