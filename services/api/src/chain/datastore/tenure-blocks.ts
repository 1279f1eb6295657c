import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
import { blockSelect, type DbBlockRow } from './blocks';

/**
 * A page of a tenure's canonical blocks (`$1` tenure height, `$2` limit, `$3` offset, `$4` cursor or null), highest
 * first. A tenure is a run of consecutive canonical blocks: its lowest and highest heights come from two probes of
 * `blocks_canonical_tenure`, and the page is the height range from `high` (the cursor's height, or the tenure's top,
 * less the offset) down `limit` blocks within the tenure, with the blocks a whole page above and below (the
 * neighbouring pages' cursors), as `/extended/v2/blocks` pages the chain.
 */
const TENURE_PAGE = statement(
  `SELECT ${TIP_SELECT}, t.lo, t.hi, c.block_height AS cursor_height, r.high,
          newer.index_block_hash AS newer_index_block_hash, older.index_block_hash AS older_index_block_hash,
          ${blockSelect('b')}
   FROM ${FROM_TIP}
   CROSS JOIN LATERAL (
     SELECT (SELECT x.block_height FROM blocks x WHERE x.canonical AND x.tenure_height = $1::int ORDER BY x.block_height LIMIT 1)::int8 AS lo,
            (SELECT x.block_height FROM blocks x WHERE x.canonical AND x.tenure_height = $1::int ORDER BY x.block_height DESC LIMIT 1)::int8 AS hi
   ) t
   LEFT JOIN blocks c ON c.index_block_hash = $4::text AND c.canonical AND c.tenure_height = $1::int
   CROSS JOIN LATERAL (SELECT CASE WHEN $4::text IS NULL THEN t.hi ELSE c.block_height END - $3::int8 AS high) r
   LEFT JOIN blocks newer
     ON newer.canonical AND newer.block_height = r.high + $2::int8 AND r.high + $2::int8 BETWEEN t.lo AND t.hi
   LEFT JOIN blocks older
     ON older.canonical AND older.block_height = r.high - $2::int8 AND r.high - $2::int8 BETWEEN t.lo AND t.hi
   LEFT JOIN blocks b
     ON b.canonical AND b.block_height BETWEEN greatest(r.high - $2::int8 + 1, t.lo) AND r.high AND r.high BETWEEN t.lo AND t.hi
   ORDER BY b.block_height DESC`,
);

export interface TenurePage {
  tip: DbChainTip | null;
  /** The tenure's lowest and highest canonical heights; null when it has no canonical block. */
  lo: number | null;
  hi: number | null;
  cursorHeight: number | null;
  high: number | null;
  rows: DbBlockRow[];
  newer: string | null;
  older: string | null;
}

export async function getTenureBlockPage(
  db: Knex,
  tenureHeight: number,
  page: { limit: number; offset: number; cursor?: string },
): Promise<TenurePage> {
  type Row = TipColumns & {
    lo: string | null;
    hi: string | null;
    cursor_height: number | null;
    high: string | null;
    newer_index_block_hash: string | null;
    older_index_block_hash: string | null;
    index_block_hash: string | null;
  };
  const rows = await query<Row>(db, TENURE_PAGE, [tenureHeight, page.limit, page.offset, page.cursor ?? null]);
  const first = rows[0]!;
  const num = (v: string | null) => (v === null ? null : Number(v));
  return {
    tip: tipOf(first),
    lo: num(first.lo),
    hi: num(first.hi),
    cursorHeight: first.cursor_height,
    high: num(first.high),
    rows: rowsCarrying<DbBlockRow>(rows, 'index_block_hash'),
    newer: first.newer_index_block_hash,
    older: first.older_index_block_hash,
  };
}
