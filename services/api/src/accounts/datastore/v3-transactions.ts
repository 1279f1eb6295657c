import type { Knex } from 'knex';
import { UnexpectedRowError, type DbChainTip, type DbEvent } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
// The chain family's transaction and mempool rows: every list of transactions reads the same rows (see the report on ADR 0023).
import { txParents, txRowSelect, txRowsOf, txSelect, type DbTxRow } from '../../chain/datastore/txs';
import { mempoolSelect, prefixedMempoolTxOf, type DbMempoolTxRow } from '../../chain/datastore/mempool';
import { ANCHORED_SEQUENCE } from '../../mappers/v3-transaction-summary';
import { V3_EVENT_TYPES } from '../mappers/v3-transactions';
import { principalTxJsonProbe } from './txs-with-transfers';

/** A v3 transaction cursor: the newest row of the page is at or below this chain position. */
export interface TxPosition {
  height: number;
  sequence: number;
  txIndex: number;
}

/** The bound of a first page: above every position. */
const TOP: TxPosition = { height: 2147483647, sequence: 2147483647, txIndex: 2147483647 };

/** The largest transaction index the reference API's cursors resolve `<height>:0:0` to (int2 max). */
const MAX_TX_INDEX = 32767;

/**
 * A page of transactions in chain order, newest first, from a cursor, in one statement: `$1` limit, `$2`…`$4` the
 * cursor's height, microblock sequence and index (a cursor `<height>:0:0` that names no row of the list means the
 * top of that block, as the reference API resolves it); `limit + 1` rows (the last one is the next page's first);
 * the list's total; and the previous page's first row (the `limit`-th newer row, or the newest when there are fewer).
 * `from` is the list's table as `x`, `where` its condition, `seq` its microblock sequence expression (the
 * `txs_canonical_order` index's for `txs`). Each row of the page is read from `txs` by primary key in a LATERAL
 * subquery that `OFFSET 0` keeps whole (ADR 0017).
 */
function txPageText(list: {
  from: string;
  where: string;
  seq: string;
  total: string;
  /** More columns of the list's rows, `[expression over x, name]`. */
  extra: Array<[string, string]>;
}): string {
  const extraOf = (alias: string) => list.extra.map(([, n]) => `, ${alias}.${n}`).join('');
  return `${keysOfPage(list)}
     SELECT ${TIP_SELECT}, ${list.total} AS total, (SELECT h || ':' || s || ':' || i FROM prev) AS prev_cursor,
            ${txRowSelect('r')}, r.k_height, r.k_seq, r.k_index${extraOf('r')}
     FROM ${FROM_TIP}
     LEFT JOIN LATERAL (
       SELECT t.*, k.k_height, k.k_seq, k.k_index${extraOf('k')}
       FROM page k
       CROSS JOIN LATERAL (
         SELECT ${txSelect('t')} FROM txs t ${txParents('t')}
         WHERE t.tx_id = k.tx_id AND t.index_block_hash = k.index_block_hash
         OFFSET 0
       ) t
     ) r ON true
     ORDER BY r.k_height DESC, r.k_seq DESC, r.k_index DESC`;
}

/**
 * The CTEs of a page of `txPageText`'s list (`$1`…`$4` as there): `page` the page's keys (`tx_id`,
 * `index_block_hash`, `k_height`, `k_seq`, `k_index` and the extra columns), `limit + 1` rows from the
 * cursor; `first` its newest row; `prev` the previous page's first row (`h`, `s`, `i`).
 */
function keysOfPage(list: { from: string; where: string; seq: string; extra: Array<[string, string]> }): string {
  const key = `x.block_height, ${list.seq}, x.tx_index`;
  const extraSelect = list.extra.map(([e, n]) => `, ${e} AS ${n}`).join('');
  return `WITH exact AS (
       SELECT ($3::int <> 0 OR $4::int <> 0 OR EXISTS (
         SELECT 1 FROM ${list.from} WHERE ${list.where} AND (${key}) = ($2::int, $3::int, $4::int)
       )) AS yes
     ),
     cur AS (
       SELECT $2::int AS h, CASE WHEN exact.yes THEN $3::int ELSE ${ANCHORED_SEQUENCE} END AS s,
              CASE WHEN exact.yes THEN $4::int ELSE ${MAX_TX_INDEX} END AS i
       FROM exact
     ),
     page AS (
       SELECT k.* FROM cur CROSS JOIN LATERAL (
         SELECT x.tx_id, x.index_block_hash, x.block_height AS k_height, ${list.seq} AS k_seq, x.tx_index AS k_index${extraSelect}
         FROM ${list.from}
         WHERE ${list.where} AND (${key}) <= (cur.h, cur.s, cur.i)
         ORDER BY x.block_height DESC, ${list.seq} DESC, x.tx_index DESC
         LIMIT $1::int + 1
       ) k
     ),
     first AS (SELECT * FROM page ORDER BY k_height DESC, k_seq DESC, k_index DESC LIMIT 1),
     prev AS (
       SELECT q.* FROM first CROSS JOIN LATERAL (
         SELECT x.block_height AS h, ${list.seq} AS s, x.tx_index AS i
         FROM ${list.from}
         WHERE ${list.where} AND (${key}) > (first.k_height, first.k_seq, first.k_index)
         ORDER BY x.block_height, ${list.seq}, x.tx_index
         LIMIT $1::int
       ) q
       ORDER BY q.h DESC, q.s DESC, q.i DESC LIMIT 1
     )`;
}

const SEQ = `coalesce(x.microblock_sequence, ${ANCHORED_SEQUENCE})`;

/**
 * `/extended/v3/transactions`: the canonical transactions (an index-only walk of `txs_canonical_order` from the
 * cursor), the total from the indexer's `chain_tx_counts`.
 */
const TRANSACTIONS = statement(
  txPageText({
    from: 'txs x',
    where: 'x.canonical',
    seq: SEQ,
    total: 'coalesce((SELECT sum(n.tx_count) FROM chain_tx_counts n), 0)',
    extra: [],
  }),
);

/**
 * `/extended/v3/principals/{principal}/transactions` (`$5` the principal): its rows of `principal_txs` (migration
 * 070) from the cursor, one range of the primary key, each with its item kept as JSON text by the indexer
 * (`principal_tx_json.v3_json`, ADR 0039: the summary, the principal's involvement and what it moved), by the pair's
 * hash (migration 111); the total from `principal_tx_counts`. No step of it reads more than the page of the
 * principal's history. One
 * row (ADR 0046): the page's `limit` items joined in order, `missing` a row of the page without its item, and the
 * cursors (`<height>:<microblock sequence>:<index>`) of the page's first row, of the row after it and of the previous
 * page's first row.
 */
export const PRINCIPAL_TRANSACTIONS = statement(
  `${keysOfPage({ from: 'principal_txs x', where: 'x.principal = $5::text', seq: 'x.microblock_sequence', extra: [] })}
   SELECT ${TIP_SELECT}, coalesce((SELECT c.tx_count FROM principal_tx_counts c WHERE c.principal = $5::text), 0) AS total,
          (SELECT h || ':' || s || ':' || i FROM prev) AS prev_cursor,
          (SELECT k_height || ':' || k_seq || ':' || k_index FROM first) AS current_cursor,
          (SELECT k_height || ':' || k_seq || ':' || k_index FROM page
           ORDER BY k_height DESC, k_seq DESC, k_index DESC OFFSET $1::int LIMIT 1) AS next_cursor,
          h.results, h.missing
   FROM ${FROM_TIP}
   CROSS JOIN LATERAL (
     SELECT string_agg(x.v3_json, ',' ORDER BY k.k_height DESC, k.k_seq DESC, k.k_index DESC) AS results,
            min(k.tx_id) FILTER (WHERE x.v3_json IS NULL) AS missing
     FROM (SELECT * FROM page ORDER BY k_height DESC, k_seq DESC, k_index DESC LIMIT $1::int) k
     LEFT JOIN principal_tx_json x ON ${principalTxJsonProbe('$5::text')}
   ) h`,
);

/**
 * A v3 cursor page whose items are kept texts (a principal's history, ADR 0046; the mempool, ADR 0045): its total,
 * its items joined with `,` in order (`''` for none) and its cursors.
 */
export interface KeptCursorPage {
  total: number;
  texts: string;
  cursor: { next: string | null; previous: string | null; current: string | null };
}

interface TxSummaryPage<T> {
  tip: DbChainTip | null;
  total: number;
  /** The page and, when there is a next page, its first row after it. */
  rows: T[];
  prevCursor: string | null;
}

type PageRow = TipColumns & { total: string | number | null; prev_cursor: string | null; tx_id: string | null };

function pageOf<T>(rows: PageRow[]): TxSummaryPage<T> {
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    total: Number(first.total ?? 0),
    rows: txRowsOf(rows) as T[],
    prevCursor: first.prev_cursor,
  };
}

export async function getTransactionSummaries(
  db: Knex,
  limit: number,
  cursor: TxPosition | null,
): Promise<TxSummaryPage<DbTxRow>> {
  const c = cursor ?? TOP;
  return pageOf(await query<PageRow>(db, TRANSACTIONS, [limit, c.height, c.sequence, c.txIndex]));
}

export async function getPrincipalTransactionSummaries(
  db: Knex,
  principal: string,
  limit: number,
  cursor: TxPosition | null,
): Promise<KeptCursorPage & { tip: DbChainTip | null }> {
  const c = cursor ?? TOP;
  type Row = TipColumns & {
    total: string | number;
    prev_cursor: string | null;
    current_cursor: string | null;
    next_cursor: string | null;
    results: string | null;
    missing: string | null;
  };
  const [row] = await query<Row>(db, PRINCIPAL_TRANSACTIONS, [limit, c.height, c.sequence, c.txIndex, principal]);
  // Written with the key in the block's database transaction: a key without it is an indexer/api mismatch.
  if (row!.missing !== null) throw new UnexpectedRowError(`transaction ${row!.missing} has no kept v3 text (principal_tx_json)`);
  return {
    tip: tipOf(row!),
    total: Number(row!.total),
    texts: row!.results ?? '',
    cursor: { next: row!.next_cursor, previous: row!.prev_cursor, current: row!.current_cursor },
  };
}

/**
 * `/extended/v3/transactions/{tx_id}` (`$1`): the canonical mined row with the number of its committed events of the
 * v3 kinds, or else the pending mempool row (as the reference reads `pruned = false`).
 */
const TRANSACTION = statement(
  `SELECT ${TIP_SELECT}, ${txSelect('t')}, c.v3_event_count, ${mempoolSelect('m', 'mempool_')}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (SELECT x.* FROM txs x WHERE x.tx_id = $1 AND x.canonical LIMIT 1) t ON true
   ${txParents('t')}
   LEFT JOIN LATERAL (
     SELECT count(*) AS v3_event_count FROM events e
     WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash AND e.committed AND e.type IN ${V3_EVENT_TYPES}
   ) c ON true
   LEFT JOIN mempool_txs m ON m.tx_id = $1 AND t.tx_id IS NULL AND m.status = 'pending'`,
);

type V3TxById =
  { kind: 'mined'; tip: DbChainTip | null; tx: DbTxRow; eventCount: number } | { kind: 'mempool'; tx: DbMempoolTxRow };

export async function getTransactionV3(db: Knex, txId: string): Promise<V3TxById | null> {
  const [row] = await query<TipColumns & { tx_id: string | null; v3_event_count: string }>(db, TRANSACTION, [txId]);
  const [tx] = txRowsOf([row!]);
  if (tx) return { kind: 'mined', tip: tipOf(row!), tx, eventCount: Number(row!.v3_event_count) };
  const pending = prefixedMempoolTxOf(row!, 'mempool_');
  return pending ? { kind: 'mempool', tx: pending } : null;
}

/**
 * `/extended/v3/transactions/{tx_id}/events` (`$1` tx id, `$2` first event index, `$3` limit): whether a canonical
 * transaction has the id, its number of committed events of the v3 kinds, and `limit + 1` of them from the cursor in
 * event order (index `events_tx`).
 */
const TRANSACTION_EVENTS = statement(
  `SELECT ${TIP_SELECT}, (t.tx_id IS NOT NULL) AS found, c.total, p.*
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (SELECT x.tx_id, x.index_block_hash FROM txs x WHERE x.tx_id = $1 AND x.canonical LIMIT 1) t ON true
   LEFT JOIN LATERAL (
     SELECT count(*) AS total FROM events e
     WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash AND e.committed AND e.type IN ${V3_EVENT_TYPES}
   ) c ON true
   LEFT JOIN LATERAL (
     SELECT e.* FROM events e
     WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash AND e.committed AND e.type IN ${V3_EVENT_TYPES}
       AND e.event_index >= $2::int
     ORDER BY e.event_index LIMIT $3::int + 1
   ) p ON true
   ORDER BY p.event_index`,
);

export async function getTransactionEventsV3(
  db: Knex,
  txId: string,
  from: number,
  limit: number,
): Promise<{ tip: DbChainTip | null; found: boolean; total: number; events: DbEvent[] }> {
  const rows = await query<TipColumns & { found: boolean; total: string | null }>(db, TRANSACTION_EVENTS, [txId, from, limit]);
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    found: first.found,
    total: Number(first.total ?? 0),
    events: rowsCarrying<DbEvent>(rows, 'event_index'),
  };
}

/** The v3 order's key of a pending row `alias` (migration 106's `bda_receipt_secs`, the key of the v3 order's indexes). */
const secsOf = (alias: string) => `bda_receipt_secs(${alias}.receipt_time)`;

/**
 * The keys (`tx_id`, `secs`) of the pending rows `condition` (over `mempool_txs m`) in the v3 order (receipt second,
 * then tx id, both descending) from the cursor `cursor` (`[seconds, tx id]` parameters) down, the first `take`: one
 * index range of migration 106's (all pending rows) or 110's (a principal's) indexes, read backward.
 */
function keysDown(condition: string, cursor: [string, string] | null, take: string): string {
  const from = cursor ? `AND (${secsOf('m')}, m.tx_id) <= (${cursor[0]}::int8, ${cursor[1]}::text)` : '';
  return `SELECT m.tx_id, ${secsOf('m')} AS secs FROM mempool_txs m
       WHERE m.status = 'pending' AND ${condition} ${from}
       ORDER BY ${secsOf('m')} DESC, m.tx_id DESC LIMIT ${take}`;
}

/** The same range read upward from above the key `first` (its `secs`, `tx_id`), the first `take`. */
function keysUp(condition: string, take: string): string {
  return `SELECT m.tx_id, ${secsOf('m')} AS secs FROM mempool_txs m
       WHERE m.status = 'pending' AND ${condition} AND (${secsOf('m')}, m.tx_id) > (first.secs, first.tx_id)
       ORDER BY ${secsOf('m')}, m.tx_id LIMIT ${take}`;
}

/** A principal's pending rows: its sender's, a token transfer's recipient's, or the deployed or called contract's. */
const PRINCIPAL_BRANCHES = [
  'm.sender_address = $2::text',
  "m.payload->>'recipient_address' = $2::text",
  'm.contract_id = $2::text',
];

/**
 * The keys of a principal's rows as the union of its three branches' ranges (`mempool_pending_sender_secs`,
 * `_recipient_secs`, `_contract_secs`, migration 110), each cut at `take` entries: however many the principal has
 * pending, a page reads at most three times its length, instead of a bitmap OR over all of them and a sort. A
 * transaction in two branches (a self-transfer) is one row of the union.
 */
function principalKeys(branch: (condition: string) => string, order: string, take: string): string {
  return `SELECT u.tx_id, u.secs FROM (${PRINCIPAL_BRANCHES.map((c) => `(${branch(c)})`).join(' UNION ')}) u
       ORDER BY ${order} LIMIT ${take}`;
}

/**
 * A page of the pending mempool in the reference API's v3 order, all of it or a principal's, as the kept v3 texts
 * (`mempool_tx_json.v3_json`, migration 110, ADR 0045) joined with `,` in the order, in one statement of one row:
 * - the page: `$1` + 1 keys from the cursor down (or from the top), the last one the next page's first; the page
 *   before it: `$1` keys up from the page's first, the highest of them its first (a LATERAL on the page's first key,
 *   so that the generic plan starts its index range there). Whole mempool: index ranges of migration 106's index;
 *   a principal's (`$2`): the union of three (`principalKeys`).
 * - the total: a kept row, of all pending transactions (migration 086) or of the principal's (`as_party`, migration
 *   090: those it sends, receives or whose contract it is, each once).
 * - the page's `$1` texts, each joined to its key by primary key in a LATERAL that `OFFSET 0` keeps whole (ADR 0017);
 *   `n` and `kept` count the keys and the texts: a pending row without its text is an indexer/api mismatch.
 * The cursor is the last two parameters. Two texts each, the first page and a cursor page: a generic plan cannot
 * serve `cursor IS NULL OR …` from an index (ADR 0028's addendum).
 */
function mempoolPageText(principal: boolean, fromCursor: boolean): string {
  const cursor: [string, string] | null = fromCursor ? (principal ? ['$3', '$4'] : ['$2', '$3']) : null;
  const down = 'secs DESC, tx_id DESC';
  const page = principal
    ? principalKeys((c) => keysDown(c, cursor, '$1::int + 1'), down, '$1::int + 1')
    : keysDown('true', cursor, '$1::int + 1');
  const above = principal ? principalKeys((c) => keysUp(c, '$1::int'), 'secs, tx_id', '$1::int') : keysUp('true', '$1::int');
  const total = principal
    ? 'coalesce((SELECT c.as_party FROM mempool_principal_counts c WHERE c.principal = $2::text), 0)'
    : 'coalesce((SELECT c.pending FROM mempool_pending_count c), 0)';
  return `WITH page AS (
       SELECT k.tx_id, k.secs, row_number() OVER (ORDER BY k.secs DESC, k.tx_id DESC) AS pos FROM (${page}) k
     ),
     first AS (SELECT * FROM page WHERE pos = 1),
     prev AS (
       SELECT q.* FROM first CROSS JOIN LATERAL (${above}) q ORDER BY q.secs DESC, q.tx_id DESC LIMIT 1
     )
     SELECT ${total} AS total,
            (SELECT secs || ':' || tx_id FROM prev) AS prev_cursor,
            (SELECT secs || ':' || tx_id FROM first) AS current_cursor,
            (SELECT secs || ':' || tx_id FROM page WHERE pos = $1::int + 1) AS next_cursor,
            p.texts, p.n, p.kept
     FROM (
       SELECT string_agg(j.v3_json, ',' ORDER BY k.pos) AS texts, count(*) AS n, count(j.v3_json) AS kept
       FROM page k
       LEFT JOIN LATERAL (SELECT j.v3_json FROM mempool_tx_json j WHERE j.tx_id = k.tx_id OFFSET 0) j ON true
       WHERE k.pos <= $1::int
     ) p`;
}

const MEMPOOL_FIRST = statement(mempoolPageText(false, false));
const MEMPOOL_FROM = statement(mempoolPageText(false, true));
const PRINCIPAL_MEMPOOL_FIRST = statement(mempoolPageText(true, false));
const PRINCIPAL_MEMPOOL_FROM = statement(mempoolPageText(true, true));

export interface MempoolCursor {
  seconds: number;
  txId: string;
}

export async function getMempoolSummaries(
  db: Knex,
  limit: number,
  cursor: MempoolCursor | null,
  principal: string | null,
): Promise<KeptCursorPage> {
  const values: unknown[] = [limit];
  if (principal !== null) values.push(principal);
  if (cursor !== null) values.push(cursor.seconds, cursor.txId);
  const text =
    principal !== null
      ? cursor === null
        ? PRINCIPAL_MEMPOOL_FIRST
        : PRINCIPAL_MEMPOOL_FROM
      : cursor === null
        ? MEMPOOL_FIRST
        : MEMPOOL_FROM;
  const [row] = await query<{
    total: string | number;
    prev_cursor: string | null;
    current_cursor: string | null;
    next_cursor: string | null;
    texts: string | null;
    n: string;
    kept: string;
  }>(db, text, values);
  if (!row) throw new UnexpectedRowError('the v3 mempool page statement returned no row');
  // Written with the row in the announcement's database transaction: a key without it is an indexer/api mismatch.
  if (row.kept !== row.n) {
    throw new UnexpectedRowError(`${Number(row.n) - Number(row.kept)} pending transactions of the page have no kept v3 text`);
  }
  return {
    total: Number(row.total),
    texts: row.texts ?? '',
    cursor: { next: row.next_cursor, previous: row.prev_cursor, current: row.current_cursor },
  };
}

/** One row of `principal_tx_balance_changes` (migration 070). */
export interface DbPrincipalBalanceChange {
  tx_id: string;
  block_height: number;
  microblock_sequence: number;
  tx_index: number;
  asset_type: number;
  asset_identifier: string;
  sent: string;
  received: string;
}

const CHANGE_COLUMNS =
  'c.tx_id, c.block_height, c.microblock_sequence, c.tx_index, c.asset_type, c.asset_identifier, c.sent::text AS sent, c.received::text AS received';

/**
 * `/extended/v3/principals/{principal}/transactions/{tx_id}/balance-changes` (`$1` principal, `$2` tx id, `$3`/`$4`
 * the cursor's asset type and identifier or nulls, `$5` limit): the principal's rows of the transaction in asset order
 * from the cursor (`limit + 1`), their number, and the previous page's first row (the `limit`-th earlier one, as the
 * reference computes it). One primary-key range.
 */
const TX_BALANCE_CHANGES = statement(
  `WITH mine AS MATERIALIZED (
       SELECT ${CHANGE_COLUMNS} FROM principal_tx_balance_changes c WHERE c.principal = $1::text AND c.tx_id = $2::text
     ),
     page AS (
       SELECT * FROM mine WHERE $3::int IS NULL OR (asset_type, asset_identifier) >= ($3::int, $4::text)
       ORDER BY asset_type, asset_identifier LIMIT $5::int + 1
     ),
     first AS (SELECT * FROM page ORDER BY asset_type, asset_identifier LIMIT 1),
     prev AS (
       SELECT r.asset_type, r.asset_identifier FROM mine r, first
       WHERE (r.asset_type, r.asset_identifier) < (first.asset_type, first.asset_identifier)
       ORDER BY r.asset_type DESC, r.asset_identifier DESC OFFSET $5::int - 1 LIMIT 1
     )
   SELECT (SELECT count(*) FROM mine) AS total, (SELECT asset_type || ':' || asset_identifier FROM prev) AS prev_cursor, p.*
   FROM (SELECT 1) one LEFT JOIN page p ON true
   ORDER BY p.asset_type, p.asset_identifier`,
);

/**
 * `/extended/v3/principals/{principal}/balance-changes` (`$1` principal, `$2` tx ids, `$3`…`$7` the cursor's height,
 * sequence, index, asset type and identifier or nulls, `$8` limit): the principal's rows of those transactions, newest
 * transaction first then in asset order, from the cursor (`limit + 1`), their number, and the previous page's first
 * row as the reference computes it. At most one page size of transactions, each a primary-key range.
 */
const BALANCE_CHANGES = statement(
  `WITH mine AS MATERIALIZED (
       SELECT ${CHANGE_COLUMNS} FROM principal_tx_balance_changes c WHERE c.principal = $1::text AND c.tx_id = ANY($2::text[])
     ),
     page AS (
       SELECT * FROM mine
       WHERE $3::int IS NULL
          OR (block_height, microblock_sequence, tx_index) < ($3::int, $4::int, $5::int)
          OR ((block_height, microblock_sequence, tx_index) = ($3::int, $4::int, $5::int)
              AND (asset_type, asset_identifier) >= ($6::int, $7::text))
       ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC, asset_type, asset_identifier
       LIMIT $8::int + 1
     ),
     first AS (
       SELECT * FROM page
       ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC, asset_type, asset_identifier LIMIT 1
     ),
     prev AS (
       SELECT r.* FROM mine r, first
       WHERE (r.block_height, r.microblock_sequence, r.tx_index) > (first.block_height, first.microblock_sequence, first.tx_index)
          OR ((r.block_height, r.microblock_sequence, r.tx_index) = (first.block_height, first.microblock_sequence, first.tx_index)
              AND (r.asset_type, r.asset_identifier) < (first.asset_type, first.asset_identifier))
       ORDER BY r.block_height, r.microblock_sequence, r.tx_index, r.asset_type DESC, r.asset_identifier DESC
       OFFSET $8::int - 1 LIMIT 1
     )
   SELECT (SELECT count(*) FROM mine) AS total,
          (SELECT block_height || ':' || microblock_sequence || ':' || tx_index || ':' || asset_type || ':' || asset_identifier
           FROM prev) AS prev_cursor,
          p.*
   FROM (SELECT 1) one LEFT JOIN page p ON true
   ORDER BY p.block_height DESC, p.microblock_sequence DESC, p.tx_index DESC, p.asset_type, p.asset_identifier`,
);

interface BalanceChangePage {
  total: number;
  rows: DbPrincipalBalanceChange[];
  prevCursor: string | null;
}

type ChangeRow = { total: string; prev_cursor: string | null; tx_id: string | null };

function changePageOf(rows: ChangeRow[]): BalanceChangePage {
  const first = rows[0]!;
  return {
    total: Number(first.total),
    rows: rowsCarrying<DbPrincipalBalanceChange>(rows, 'tx_id'),
    prevCursor: first.prev_cursor,
  };
}

export async function getTxBalanceChanges(
  db: Knex,
  principal: string,
  txId: string,
  limit: number,
  cursor: { assetType: number; asset: string } | null,
): Promise<BalanceChangePage> {
  return changePageOf(
    await query<ChangeRow>(db, TX_BALANCE_CHANGES, [principal, txId, cursor?.assetType ?? null, cursor?.asset ?? null, limit]),
  );
}

export interface BalanceChangeCursor {
  height: number;
  sequence: number;
  txIndex: number;
  assetType: number;
  asset: string;
}

export async function getBalanceChanges(
  db: Knex,
  principal: string,
  txIds: string[],
  limit: number,
  cursor: BalanceChangeCursor | null,
): Promise<BalanceChangePage> {
  return changePageOf(
    await query<ChangeRow>(db, BALANCE_CHANGES, [
      principal,
      txIds,
      cursor?.height ?? null,
      cursor?.sequence ?? null,
      cursor?.txIndex ?? null,
      cursor?.assetType ?? null,
      cursor?.asset ?? null,
      limit,
    ]),
  );
}

/**
 * The liquid STX supply at height `$1` (null: the tip), from the indexer's running totals (`stx_supply_changes`,
 * migration 071): the newest row at or below it, one index read.
 */
const STX_SUPPLY = statement(
  `SELECT ${TIP_SELECT}, coalesce(s.supply, 0)::text AS supply
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT c.supply FROM stx_supply_changes c WHERE c.block_height <= coalesce($1::int, tip.block_height)
     ORDER BY c.block_height DESC LIMIT 1
   ) s ON true`,
);

export async function getStxSupply(db: Knex, height: number | null): Promise<{ tip: DbChainTip | null; supply: bigint }> {
  const [row] = await query<TipColumns & { supply: string }>(db, STX_SUPPLY, [height]);
  return { tip: tipOf(row!), supply: BigInt(row!.supply) };
}
