import type { Knex } from 'knex';
import { ADDRESS_TXS_LIST, listSeqAt, type DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, statement, type Statement } from '../../datastore/read-statement';
import { keptResults, type TxPageColumns } from './tx-lists';

/**
 * Which part of an address's history: everything, one block height, or up to and including a block given by its
 * height or by its block hash or index block hash (`0x` lower-case hex).
 */
export type HeightRange =
  { kind: 'all' } | { kind: 'at'; height: number } | { kind: 'until'; height: number } | { kind: 'untilHash'; hash: string };

/**
 * The `seq` (migration 087: 1…n without gaps in the address's order) of the address's newest row whose height
 * satisfies `cond`, or 0: one backward probe of the primary key.
 */
const seqAt = (cond: string) => listSeqAt(ADDRESS_TXS_LIST, '$1', cond);

/**
 * Per kind of range: the upper bound `r.height` (`$4`), and the `seq` of the address's newest row in the range
 * (`top`) and of its newest row below the range (`bottom`): the range holds the rows `bottom + 1 … top`, so its total
 * is their difference. Everything: the highest `seq` (one probe of `(address, seq)`). One height: the rows up to it
 * less those below it. Up to a height: the rows up to it.
 */
const RANGES: Record<HeightRange['kind'], { bound?: string; top: string; bottom: string }> = {
  all: { top: 'coalesce((SELECT max(x.seq) FROM address_txs x WHERE x.address = $1), 0)', bottom: '0' },
  at: { top: seqAt('<= $4::int'), bottom: seqAt('< $4::int') },
  until: { bound: 'CROSS JOIN LATERAL (SELECT $4::int AS height) r', top: seqAt('<= r.height'), bottom: '0' },
  untilHash: {
    // The block is looked up as `/extended/v2/blocks/{hash}` does; no row when no canonical block has the hash.
    bound: `LEFT JOIN LATERAL (
       SELECT x.block_height AS height FROM blocks x
       WHERE x.canonical AND (x.index_block_hash = $4 OR x.block_hash = $4)
       ORDER BY x.block_height DESC LIMIT 1
     ) r ON true`,
    top: seqAt('<= r.height'),
    bottom: '0',
  },
};

/**
 * `/extended/v1/address/{principal}/transactions` in one statement (`$1` address, `$2` limit, `$3` offset, `$4` the
 * range's height or hash), one row: the tip, the total, and one page of the history as the transactions' kept list
 * texts (`tx_list_json`, read by primary key: ADR 0035) joined in order by PostgreSQL (ADR 0043), with `missing`, a
 * row of the page without a text (null when each has one).
 *
 * `address_txs` is numbered (migration 087), so the range's total is `top − bottom` (index probes, no count) and the
 * page at any offset, newest first, is the `seq` range `(max(bottom, top − offset − limit), top − offset]` of the
 * index `(address, seq)`: the page's rows only, then each one's transaction by primary key, whatever the offset
 * (before, the offset's entries were walked: about 2,600 buffers at offset 101,910 of one address). An offset past
 * the end is an empty range. Rows whose transaction is no longer canonical are left out.
 */
function historyText(kind: HeightRange['kind']): string {
  const range = RANGES[kind];
  return `SELECT ${TIP_SELECT}, ${range.bound ? 'r.height' : 'NULL::int'} AS until_height, c.top - c.bottom AS total,
          h.results, h.missing
   FROM ${FROM_TIP}
   ${range.bound ?? ''}
   CROSS JOIN LATERAL (SELECT ${range.top} AS top, ${range.bottom} AS bottom OFFSET 0) s
   -- bigint: an offset up to 2^31 - 1 below a small seq.
   CROSS JOIN LATERAL (SELECT s.top, s.bottom, s.top - $3::bigint AS hi) c
   -- The page's texts joined in one field, newest first (as tx-lists.ts's pages, ADR 0043); the index range gives the
   -- rows in that order, so the aggregate sorts nothing.
   CROSS JOIN LATERAL (
     SELECT string_agg(j.json, ',' ORDER BY a.seq DESC) AS results,
            min(a.tx_id) FILTER (WHERE j.json IS NULL) AS missing
     FROM address_txs a
     JOIN txs t ON t.tx_id = a.tx_id AND t.index_block_hash = a.index_block_hash AND t.canonical
     LEFT JOIN tx_list_json j ON j.tx_id = a.tx_id AND j.index_block_hash = a.index_block_hash
     WHERE a.address = $1 AND a.seq <= c.hi AND a.seq > greatest(c.bottom, c.hi - $2::integer)
   ) h`;
}

/** The statement of each kind of range, built at start-up. */
export const ADDRESS_HISTORY: Record<HeightRange['kind'], Statement> = {
  all: statement(historyText('all')),
  at: statement(historyText('at')),
  until: statement(historyText('until')),
  untilHash: statement(historyText('untilHash')),
};

export interface AddressHistory {
  tip: DbChainTip | null;
  /** The address's transactions within the range. */
  total: number;
  /** The page, newest first: the kept list texts (`tx_list_json`, ADR 0035) joined with commas ('' for none). */
  results: string;
  /** For `untilHash`: the height of the block with that hash, or null when no canonical block has it. */
  untilHeight: number | null;
}

/** One page of an address's history within `range`, with the tip and the total. */
export async function getAddressHistory(
  db: Knex,
  address: string,
  page: { limit: number; offset: number },
  range: HeightRange = { kind: 'all' },
): Promise<AddressHistory> {
  const values: unknown[] = [address, page.limit, page.offset];
  if (range.kind === 'at' || range.kind === 'until') values.push(range.height);
  if (range.kind === 'untilHash') values.push(range.hash);
  type Row = TipColumns & TxPageColumns & { until_height: number | null; total: number | string };
  const [row] = await query<Row>(db, ADDRESS_HISTORY[range.kind], values);
  return {
    tip: tipOf(row!),
    total: Number(row!.total),
    results: keptResults(row!),
    untilHeight: row!.until_height,
  };
}
