import type { Knex } from 'knex';
import type { DbChainTip, DbEvent } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
import { ASSET_EVENT_TYPES, eventSelect } from './address-assets';
import { keptItems, keptItemsOfPage, type DbKeptItems } from './txs-with-transfers';

/**
 * `/extended/v2/addresses/{address}/transactions` (`$1` principal, `$2` limit, `$3` offset, `$4`…`$6` the cursor's
 * block height, transaction index and microblock sequence, nulls without a cursor): the principal's rows of
 * `principal_txs` (migration 070: origin, sponsor, token-transfer recipient, contract, asset event party, as the
 * reference API's `principal_txs`), newest first in its order (height, microblock sequence, index), from the cursor
 * on. The rows are numbered (migration 077's `seq`, 1…n without gaps in that order), so the page at any offset is one
 * range of the index `(principal, seq)`: `top` is the `seq` of the newest row at or below the cursor (one backward
 * probe of the primary key), the page the `limit + 1` rows from `top - offset` down (the last one's key is the cursor
 * of the page after), and the first row of the page before the row `limit` places above the page's first. The total
 * from `principal_tx_counts`, in one statement. One row (ADR 0046): the page's `limit` items joined
 * (`keptItemsOfPage`: each row's transaction's kept list text and the principal's kept part of the item, `v2_tail`,
 * ADR 0039) and the cursors written as the list writes them (`<index block hash>:<microblock sequence>:<tx index>`):
 * the page's first row (`cursor`), the row after the page (`prev_cursor`, the next older page's first) and the first
 * row of the page before (`next_cursor`).
 */
export const ADDRESS_TRANSACTIONS = statement(
  `WITH top AS MATERIALIZED (
     -- Materialized: the cursor's probe runs once (inlined, each bound of the range below would run it).
     SELECT coalesce((
       SELECT k.seq FROM principal_txs k
       WHERE k.principal = $1
         -- Without a cursor, from above every position: a bound the primary-key range takes as its own (an OR would not).
         AND (k.block_height, k.microblock_sequence, k.tx_index)
             <= (coalesce($4::integer, 2147483647), coalesce($6::integer, 2147483647), coalesce($5::integer, 2147483647))
       ORDER BY k.block_height DESC, k.microblock_sequence DESC, k.tx_index DESC
       LIMIT 1
     ), 0)::bigint - $3::bigint AS hi  -- bigint: an offset up to 2^31 - 1 below a small seq
   ),
   page AS (
     SELECT p.tx_id, p.index_block_hash, p.seq,
            p.index_block_hash || ':' || p.microblock_sequence || ':' || p.tx_index AS cursor
     FROM top JOIN principal_txs p ON p.principal = $1 AND p.seq <= top.hi AND p.seq > top.hi - ($2::integer + 1)
   ),
   first AS (SELECT * FROM page ORDER BY seq DESC LIMIT 1),
   newer AS (
     SELECT k.index_block_hash || ':' || k.microblock_sequence || ':' || k.tx_index AS cursor
     FROM first JOIN principal_txs k ON k.principal = $1 AND k.seq = first.seq + $2::integer
   )
   SELECT ${TIP_SELECT}, coalesce((SELECT c.tx_count FROM principal_tx_counts c WHERE c.principal = $1), 0) AS total,
          (SELECT n.cursor FROM newer n) AS next_cursor,
          (SELECT f.cursor FROM first f) AS cursor,
          (SELECT a.cursor FROM page a, top WHERE a.seq = top.hi - $2::integer) AS prev_cursor,
          h.results, h.missing
   FROM ${FROM_TIP}
   ${keptItemsOfPage(
     '(SELECT a.* FROM page a, top WHERE a.seq > top.hi - $2::integer ORDER BY a.seq DESC) k',
     'k.seq DESC',
     'v2_tail',
   )}`,
);

export interface AddressTransactionsPage {
  tip: DbChainTip | null;
  total: number;
  /** The page's items, newest first, joined with commas ('' for none). */
  results: string;
  /** The page's first row, the row after the page and the first row of the page before, as cursors. */
  cursor: string | null;
  prevCursor: string | null;
  nextCursor: string | null;
}

export async function getAddressTransactions(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  cursor: { height: number; sequence: number; txIndex: number } | null,
): Promise<AddressTransactionsPage> {
  type Row = TipColumns &
    DbKeptItems & { total: string; cursor: string | null; prev_cursor: string | null; next_cursor: string | null };
  const [row] = await query<Row>(db, ADDRESS_TRANSACTIONS, [
    principal,
    page.limit,
    page.offset,
    cursor?.height ?? null,
    cursor?.txIndex ?? null,
    cursor?.sequence ?? null,
  ]);
  return {
    tip: tipOf(row!),
    total: Number(row!.total),
    results: keptItems(row!),
    cursor: row!.cursor,
    prevCursor: row!.prev_cursor,
    nextCursor: row!.next_cursor,
  };
}

const BLOCK_HEIGHT = statement(`SELECT block_height FROM blocks WHERE index_block_hash = $1 LIMIT 1`);

/** The height of the block with this index block hash (any block, as the reference API's cursor lookup); null if none. */
export async function blockHeightOf(db: Knex, indexBlockHash: string): Promise<number | null> {
  const [row] = await query<{ block_height: number }>(db, BLOCK_HEIGHT, [indexBlockHash]);
  return row?.block_height ?? null;
}

/**
 * `/extended/v2/addresses/{address}/transactions/{tx_id}/events` (`$1` principal, `$2` tx id, `$3` limit, `$4`
 * offset): whether a canonical transaction has the id, the number of its committed asset events the principal sends
 * or receives, and a page of them in event order.
 */
const TX_EVENTS = statement(
  `SELECT x.found, c.total, ${eventSelect('p')}
   FROM (SELECT EXISTS (SELECT 1 FROM txs WHERE tx_id = $2 AND canonical) AS found) x
   CROSS JOIN LATERAL (
     SELECT count(*) AS total FROM events e
     WHERE e.tx_id = $2 AND e.canonical AND e.committed AND e.type IN ${ASSET_EVENT_TYPES} AND (e.sender = $1 OR e.recipient = $1)
   ) c
   LEFT JOIN LATERAL (
     SELECT e.* FROM events e
     WHERE e.tx_id = $2 AND e.canonical AND e.committed AND e.type IN ${ASSET_EVENT_TYPES} AND (e.sender = $1 OR e.recipient = $1)
     ORDER BY e.event_index LIMIT $3 OFFSET $4
   ) p ON true
   ORDER BY p.event_index`,
);

export async function getAddressTxEvents(
  db: Knex,
  principal: string,
  txId: string,
  page: { limit: number; offset: number },
): Promise<{ found: boolean; total: number; events: DbEvent[] }> {
  const rows = await query<{ found: boolean; total: string } & Partial<DbEvent>>(db, TX_EVENTS, [
    principal,
    txId,
    page.limit,
    page.offset,
  ]);
  const first = rows[0]!;
  return { found: first.found, total: Number(first.total), events: rowsCarrying<DbEvent>(rows, 'tx_id') };
}
