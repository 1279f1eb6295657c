import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement, type Statement } from '../../datastore/read-statement';
import { ANCHORED_SEQUENCE } from '../../mappers/v3-transaction-summary';
/** The reference's largest `tx_index`, the cursor `h:0:0` falls back to when no transaction sits exactly there. */
const MAX_TX_INDEX = 0x7fff;

/** A transaction of a v3 block page: its place (the cursor's parts) and its kept summary text. */
export interface DbTxSummaryRow {
  block_height: number;
  /** `microblock_sequence`, `ANCHORED_SEQUENCE` for an anchored transaction. */
  seq: number;
  tx_index: number;
  /** `JSON.stringify(toTransactionSummaryResponse(row))` of its `txs` row (`tx_summary_json`, migration 108). */
  summary_json: string;
}

/** A `block_height:microblock_sequence:tx_index` cursor. */
export interface TxCursor {
  block_height: number;
  microblock_sequence: number;
  tx_index: number;
}

/** How the v3 list names its block. */
export type SummaryBlockKey = { kind: 'height'; height: number } | { kind: 'hash'; hash: string } | { kind: 'latest' };

const BLOCK_WHERE: Record<SummaryBlockKey['kind'], string> = {
  // `blocks_canonical_height`
  height: 'b.block_height = $2::int',
  // `blocks_pkey` or `blocks_block_hash_index`
  hash: '(b.index_block_hash = $2::text OR b.block_hash = $2::text)',
  latest: 'b.block_height = tip.block_height AND $2::text IS NULL',
};

/**
 * `/extended/v3/blocks/{height_or_hash}/transactions` in one statement, as the reference pages it: the canonical block
 * (its `tx_count` is the `total`), then its transactions in `(block_height, microblock_sequence, tx_index)` order from
 * the newest, from the cursor `$3:$4:$5` down (inclusive; none given: from the top), `$1 + 1` of them (the extra row
 * is the next page's cursor), and the cursor of the page above: the highest of the `$1` transactions above the page's
 * first. A cursor `h:0:0` that names no transaction of the block means "from the top of height h", as the reference
 * resolves it. Every transaction read is the block's range of its kept summaries (`tx_summary_json_pkey`,
 * `(index_block_hash, seq, tx_index, tx_id)`, backwards for the page): no `txs` row (ADR 0042).
 */
function summaryText(kind: SummaryBlockKey['kind']): string {
  return `WITH blk AS (
       SELECT b.index_block_hash, b.block_height, b.tx_count FROM ${FROM_TIP}
       JOIN blocks b ON b.canonical AND ${BLOCK_WHERE[kind]}
       ORDER BY b.block_height DESC LIMIT 1
     ),
     top AS (
       SELECT NOT EXISTS (
         SELECT 1 FROM tx_summary_json x, blk WHERE x.index_block_hash = blk.index_block_hash
           AND blk.block_height = $3::int8 AND x.seq = 0 AND x.tx_index = 0
       ) AS fallback
     ),
     cur AS (
       SELECT $3::int8 AS h,
              CASE WHEN $4::int8 = 0 AND $5::int8 = 0 AND top.fallback THEN ${ANCHORED_SEQUENCE} ELSE $4::int8 END AS s,
              CASE WHEN $4::int8 = 0 AND $5::int8 = 0 AND top.fallback THEN ${MAX_TX_INDEX} ELSE $5::int8 END AS i
       FROM top WHERE $3::int8 IS NOT NULL
     ),
     page AS (
       SELECT blk.block_height, x.seq, x.tx_index, x.summary_json FROM blk JOIN tx_summary_json x ON x.index_block_hash = blk.index_block_hash
       WHERE NOT EXISTS (SELECT 1 FROM cur)
          OR (blk.block_height::int8, x.seq::int8, x.tx_index::int8) <= (SELECT cur.h, cur.s, cur.i FROM cur)
       ORDER BY x.seq DESC, x.tx_index DESC, x.tx_id DESC LIMIT $1::int8 + 1
     ),
     first AS (SELECT p.seq, p.tx_index FROM page p ORDER BY p.seq DESC, p.tx_index DESC LIMIT 1),
     prev AS (
       SELECT a.block_height, a.seq, a.tx_index FROM (
         SELECT blk.block_height, x.seq, x.tx_index, x.tx_id FROM blk, first, tx_summary_json x
         WHERE x.index_block_hash = blk.index_block_hash AND (x.seq, x.tx_index) > (first.seq, first.tx_index)
         ORDER BY x.seq, x.tx_index, x.tx_id LIMIT $1
       ) a ORDER BY a.seq DESC, a.tx_index DESC, a.tx_id DESC LIMIT 1
     )
   SELECT ${TIP_SELECT}, blk.index_block_hash AS block_found, blk.tx_count AS total,
          prev.block_height || ':' || prev.seq || ':' || prev.tx_index AS prev_cursor, p.*
   FROM ${FROM_TIP}
   LEFT JOIN blk ON true
   LEFT JOIN prev ON true
   LEFT JOIN page p ON true
   ORDER BY p.seq DESC, p.tx_index DESC`;
}

const SUMMARIES = new Map<SummaryBlockKey['kind'], Statement>();

interface TxSummaryPage {
  tip: DbChainTip | null;
  found: boolean;
  total: number;
  /** At most `limit + 1` rows: the last, when there are `limit + 1`, only names the next page. */
  rows: DbTxSummaryRow[];
  prevCursor: string | null;
}

export async function getBlockTxSummaries(
  db: Knex,
  key: SummaryBlockKey,
  page: { limit: number; cursor?: TxCursor },
): Promise<TxSummaryPage> {
  let s = SUMMARIES.get(key.kind);
  if (!s) SUMMARIES.set(key.kind, (s = statement(summaryText(key.kind))));
  const value = key.kind === 'height' ? key.height : key.kind === 'latest' ? null : key.hash;
  const c = page.cursor;
  type Row = TipColumns & {
    block_found: string | null;
    total: number | null;
    prev_cursor: string | null;
    summary_json: string | null;
  };
  const rows = await query<Row>(db, s, [
    page.limit,
    value,
    c?.block_height ?? null,
    c?.microblock_sequence ?? null,
    c?.tx_index ?? null,
  ]);
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    found: first.block_found !== null,
    total: first.total ?? 0,
    rows: rowsCarrying<DbTxSummaryRow>(rows, 'summary_json'),
    prevCursor: first.prev_cursor,
  };
}

/**
 * The signer signatures of a canonical block (`blocks.signer_signature`, hex as the node sent them), a page of them
 * by position (`$1` limit, `$2` offset) and their number: the reference's `/signer-signatures` reads the array the
 * same way. The block by height, by either hash, or the tip's.
 */
function signatureText(kind: SummaryBlockKey['kind']): string {
  return `SELECT ${TIP_SELECT}, blk.index_block_hash AS block_found,
            coalesce(jsonb_array_length(blk.signer_signature), 0) AS total,
            (SELECT coalesce(jsonb_agg(e.value ORDER BY e.n), '[]'::jsonb) FROM (
               SELECT s.value, s.n FROM jsonb_array_elements_text(coalesce(blk.signer_signature, '[]'::jsonb))
                 WITH ORDINALITY AS s (value, n)
               ORDER BY s.n LIMIT $1 OFFSET $3
             ) e) AS signatures
     FROM ${FROM_TIP}
     LEFT JOIN LATERAL (
       SELECT b.index_block_hash, b.signer_signature FROM blocks b
       WHERE b.canonical AND ${BLOCK_WHERE[kind]} ORDER BY b.block_height DESC LIMIT 1
     ) blk ON true`;
}

const SIGNATURES = new Map<SummaryBlockKey['kind'], Statement>();

export async function getBlockSignerSignatures(
  db: Knex,
  key: SummaryBlockKey,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; found: boolean; total: number; signatures: string[] }> {
  let s = SIGNATURES.get(key.kind);
  if (!s) SIGNATURES.set(key.kind, (s = statement(signatureText(key.kind))));
  const value = key.kind === 'height' ? key.height : key.kind === 'latest' ? null : key.hash;
  type Row = TipColumns & { block_found: string | null; total: number; signatures: string[] };
  const [row] = await query<Row>(db, s, [page.limit, value, page.offset]);
  return { tip: tipOf(row!), found: row!.block_found !== null, total: row!.total, signatures: row!.signatures };
}
