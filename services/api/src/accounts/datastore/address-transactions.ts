import type { Knex } from 'knex';
import type { DbChainTip, DbEvent } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
import { ASSET_EVENT_TYPES, eventSelect } from './address-assets';
import { keptHistoryItems, pageOfKeptTexts, type DbKeptHistoryItem } from './txs-with-transfers';

/**
 * `/extended/v2/addresses/{address}/transactions` (`$1` principal, `$2` limit, `$3` offset, `$4`…`$6` the cursor's
 * block height, transaction index and microblock sequence, nulls without a cursor): the principal's rows of
 * `principal_txs` (migration 070: origin, sponsor, token-transfer recipient, contract, asset event party, as the
 * reference API's `principal_txs`), newest first in its order (height, microblock sequence, index), from the cursor
 * on. The rows are numbered (migration 077's `seq`, 1…n without gaps in that order), so the page at any offset is one
 * range of the index `(principal, seq)`: `top` is the `seq` of the newest row at or below the cursor (one backward
 * probe of the primary key), the page the `limit + 1` rows from `top - offset` down (the last one's key is the cursor
 * of the page after), and the first row of the page before the row `limit` places above the page's first. The total
 * from `principal_tx_counts`, in one statement. Each row of the page is its transaction's kept list text and the
 * principal's kept part of the item (`v2_tail`, ADR 0039), by primary key.
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
     SELECT p.block_height, p.microblock_sequence, p.tx_index, p.tx_id, p.index_block_hash, p.seq
     FROM top JOIN principal_txs p ON p.principal = $1 AND p.seq <= top.hi AND p.seq > top.hi - ($2::integer + 1)
   ),
   first AS (SELECT * FROM page ORDER BY seq DESC LIMIT 1),
   newer AS (
     SELECT k.tx_id, k.index_block_hash, k.microblock_sequence, k.tx_index
     FROM first JOIN principal_txs k ON k.principal = $1 AND k.seq = first.seq + $2::integer
   )
   SELECT ${TIP_SELECT}, coalesce((SELECT c.tx_count FROM principal_tx_counts c WHERE c.principal = $1), 0) AS total,
          (SELECT n.index_block_hash || ':' || n.microblock_sequence || ':' || n.tx_index FROM newer n) AS next_cursor,
          h.*
   FROM ${FROM_TIP}
   ${pageOfKeptTexts('page k', 'k.block_height DESC, k.microblock_sequence DESC, k.tx_index DESC', 'v2_tail', 'k.microblock_sequence')}`,
);

export interface AddressTransactionsPage {
  tip: DbChainTip | null;
  total: number;
  /** The page, newest first, and the row after it when there is one. */
  rows: DbKeptHistoryItem[];
  nextCursor: string | null;
}

export async function getAddressTransactions(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  cursor: { height: number; sequence: number; txIndex: number } | null,
): Promise<AddressTransactionsPage> {
  type Row = TipColumns & {
    total: string;
    next_cursor: string | null;
    tx_id: string | null;
  };
  const rows = await query<Row>(db, ADDRESS_TRANSACTIONS, [
    principal,
    page.limit,
    page.offset,
    cursor?.height ?? null,
    cursor?.txIndex ?? null,
    cursor?.sequence ?? null,
  ]);
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    total: Number(first.total),
    rows: keptHistoryItems(rows),
    nextCursor: first.next_cursor,
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
