import type { Knex } from 'knex';
import type { DbChainTip, DbEvent } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement, type Statement } from '../../datastore/read-statement';
import { UnexpectedRowError } from '@bda/db';

/** The microblock sequence of an anchored transaction in the list orders (int4 max: anchored ones sort as newest). */
const SEQ = 'coalesce(x.microblock_sequence, 2147483647)';

/**
 * A statement answering a page of mined transactions with the tip and a total, in one row: `keys` selects the page's
 * `(tx_id, index_block_hash)` in order (with `pos`), each key's kept list text (`tx_list_json`, migration 095, ADR
 * 0035) is read by primary key in a LATERAL subquery that `OFFSET 0` keeps whole, and PostgreSQL joins the texts in
 * order with commas (`results`, null for an empty page): the api copies that one field into its answer (ADR 0043). A
 * row per transaction cost both sides more than the texts themselves: the tip's columns and the key again on each of
 * the 20 rows, node-postgres' parsing of 200 fields and the page's assembly from 20 strings. The keys are sorted before
 * the texts are read, so the aggregate's `ORDER BY` finds its input in order (no sort of the texts). `missing` is a key
 * of the page that has no text (null when each has one). The text is the api's own rendering of the row while it is
 * canonical, which every page here lists: no `txs` row, block row or ABI is read.
 */
function txPageText(total: string, keys: string, bound = ''): string {
  return `SELECT ${TIP_SELECT}, c.total, h.results, h.missing
   FROM ${FROM_TIP}
   ${bound}
   CROSS JOIN LATERAL (SELECT ${total} AS total OFFSET 0) c
   CROSS JOIN LATERAL (
     SELECT string_agg(j.json, ',' ORDER BY k.pos) AS results, min(k.tx_id) FILTER (WHERE j.json IS NULL) AS missing
     FROM (SELECT k0.tx_id, k0.index_block_hash, k0.pos FROM (${keys}) k0 ORDER BY k0.pos) k
     LEFT JOIN LATERAL (
       SELECT j.json FROM tx_list_json j
       WHERE j.tx_id = k.tx_id AND j.index_block_hash = k.index_block_hash
       OFFSET 0
     ) j ON true
   ) h`;
}

export interface TxPage {
  tip: DbChainTip | null;
  total: number;
  /**
   * The page's transactions as their kept JSON texts (`toTransactionResponse`'s list form) in order, joined with
   * commas: the inside of the answer's `results` array ('' for an empty page).
   */
  results: string;
}

/** The columns of a one-row page statement (`txPageText`, the address history). */
export type TxPageColumns = {
  results: string | null;
  missing: string | null;
};

/**
 * The joined kept texts of a page statement's row. The indexer writes a text with each transaction in the block's
 * database transaction: a key without one is an indexer/api mismatch.
 */
export function keptResults(row: TxPageColumns): string {
  if (row.missing !== null) throw new UnexpectedRowError(`transaction ${row.missing} has no kept list text (tx_list_json)`);
  return row.results ?? '';
}

type TxPageRow = TipColumns & TxPageColumns & { total: string | number | null };

function txPageOf(row: TxPageRow): TxPage {
  return { tip: tipOf(row), total: Number(row.total ?? 0), results: keptResults(row) };
}

// ---------------------------------------------------------------------------------------------------------------
// /extended/v1/tx
// ---------------------------------------------------------------------------------------------------------------

export type TxSortBy = 'block_height' | 'burn_block_time' | 'fee';

/** The filters of `/extended/v1/tx`, as the reference applies them (a zero time or nonce is no filter there). */
export interface TxListFilter {
  /** Transaction types (`type_id`); empty for all. */
  types: string[];
  fromAddress?: string;
  toAddress?: string;
  startTime?: number;
  endTime?: number;
  contractId?: string;
  functionName?: string;
  nonce?: number;
}

const SORTS: Record<TxSortBy, string[]> = {
  block_height: ['x.block_height', SEQ, 'x.tx_index'],
  burn_block_time: ['x.burn_block_time', 'x.block_height', SEQ, 'x.tx_index'],
  fee: ['x.fee_rate', 'x.block_height', SEQ, 'x.tx_index'],
};

/**
 * One text per shape: sort, order, which filters are given, and whether there are no, one or several types. Without
 * filters besides the types, the total is the indexer's counter (`chain_tx_counts`) and a page in height order is an
 * index-only walk of `txs_canonical_order` (one type: `txs_canonical_type_order`). Other filters count the canonical
 * transactions they match (the reference API counts them too); `from_address` and `contract_id` are index reads of
 * the sender's or contract's transactions, the others read the canonical transactions.
 */
function txListText(sortBy: TxSortBy, order: 'asc' | 'desc', f: TxListShape): string {
  const conditions = ['x.canonical'];
  let n = 2;
  if (f.types === 'one') conditions.push(`x.type_id = $${++n}::text`);
  if (f.types === 'many') conditions.push(`x.type_id = ANY($${++n}::text[])`);
  if (f.fromAddress) conditions.push(`x.sender_address = $${++n}::text`);
  if (f.toAddress) conditions.push(`x.type_id = 'token_transfer' AND x.payload->>'recipient_address' = $${++n}::text`);
  if (f.startTime) conditions.push(`x.burn_block_time >= $${++n}::int8`);
  if (f.endTime) conditions.push(`x.burn_block_time <= $${++n}::int8`);
  if (f.contractId) conditions.push(`x.type_id = 'contract_call' AND x.contract_id = $${++n}::text`);
  if (f.functionName) conditions.push(`x.type_id = 'contract_call' AND x.payload->>'function_name' = $${++n}::text`);
  if (f.nonce) conditions.push(`x.nonce = $${++n}::int8`);
  const where = conditions.join(' AND ');
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const ordering = SORTS[sortBy].map((c) => `${c} ${dir}`).join(', ');
  const onlyTypes = !f.fromAddress && !f.toAddress && !f.startTime && !f.endTime && !f.contractId && !f.functionName && !f.nonce;
  if (onlyTypes && f.types !== 'many' && sortBy === 'block_height') return positionedTxListText(order, f.types === 'one');
  const total = onlyTypes
    ? `coalesce((SELECT sum(n.tx_count) FROM chain_tx_counts n${f.types === 'none' ? '' : ` WHERE n.type_id = ${f.types === 'one' ? '$3::text' : 'ANY($3::text[])'}`}), 0)`
    : `(SELECT count(*) FROM txs x WHERE ${where})`;
  const keys = `SELECT x.tx_id, x.index_block_hash, row_number() OVER (ORDER BY ${ordering}) AS pos
     FROM txs x WHERE ${where} ORDER BY ${ordering} LIMIT $1 OFFSET $2`;
  return txPageText(total, keys);
}

/**
 * A page of `/extended/v1/tx` in height order, of every type or of one (`$3`), at any offset for the same cost: the
 * position the page starts at (`$2` from the newest or the oldest end) is found in `chain_tx_positions` (migration
 * 080; index `chain_tx_positions_start`), which names the block holding it and how far into the block it lies; the
 * page is then read from that block on along `txs_canonical_order` (`txs_canonical_type_order`), skipping fewer rows
 * than the block holds. The total is that read model's top (the same count as `chain_tx_counts`).
 */
function positionedTxListText(order: 'asc' | 'desc', oneType: boolean): string {
  const type = oneType ? '$3::text' : "''";
  const desc = order === 'desc';
  const dir = desc ? 'DESC' : 'ASC';
  const ordering = SORTS.block_height.map((c) => `${c} ${dir}`).join(', ');
  const bound = `CROSS JOIN LATERAL (
     SELECT coalesce((SELECT p.txs_before + p.tx_count FROM chain_tx_positions p
                      WHERE p.type_id = ${type} ORDER BY p.txs_before DESC LIMIT 1), 0) AS total
     OFFSET 0
   ) n
   LEFT JOIN LATERAL (
     SELECT p.block_height, ${desc ? 'p.txs_before + p.tx_count - 1 - w.at' : 'w.at - p.txs_before'} AS skip
     FROM (SELECT ${desc ? 'n.total - 1 - $2::int8' : '$2::int8'} AS at) w
     JOIN chain_tx_positions p ON p.type_id = ${type} AND p.txs_before <= w.at
     WHERE w.at >= 0 AND w.at < n.total
     ORDER BY p.txs_before DESC LIMIT 1
   ) start ON true`;
  const keys = `SELECT x.tx_id, x.index_block_hash, row_number() OVER (ORDER BY ${ordering}) AS pos
     FROM txs x WHERE x.canonical${oneType ? ' AND x.type_id = $3::text' : ''}
       AND x.block_height ${desc ? '<=' : '>='} start.block_height
     ORDER BY ${ordering} LIMIT $1 OFFSET start.skip`;
  return txPageText('n.total', keys, bound);
}

interface TxListShape {
  types: 'none' | 'one' | 'many';
  fromAddress: boolean;
  toAddress: boolean;
  startTime: boolean;
  endTime: boolean;
  contractId: boolean;
  functionName: boolean;
  nonce: boolean;
}

const TX_LISTS = new Map<string, Statement>();

/** A page of `/extended/v1/tx` with its total and the tip. */
export async function getTxList(
  db: Knex,
  page: { limit: number; offset: number; sortBy: TxSortBy; order: 'asc' | 'desc' },
  filter: TxListFilter,
): Promise<TxPage> {
  const shape: TxListShape = {
    types: filter.types.length === 0 ? 'none' : filter.types.length === 1 ? 'one' : 'many',
    fromAddress: filter.fromAddress !== undefined,
    toAddress: filter.toAddress !== undefined,
    startTime: !!filter.startTime,
    endTime: !!filter.endTime,
    contractId: filter.contractId !== undefined,
    functionName: filter.functionName !== undefined,
    nonce: !!filter.nonce,
  };
  const key = `${page.sortBy} ${page.order} ${JSON.stringify(shape)}`;
  let s = TX_LISTS.get(key);
  if (!s) TX_LISTS.set(key, (s = statement(txListText(page.sortBy, page.order, shape))));
  const values: unknown[] = [page.limit, page.offset];
  if (shape.types === 'one') values.push(filter.types[0]);
  if (shape.types === 'many') values.push(filter.types);
  if (shape.fromAddress) values.push(filter.fromAddress);
  if (shape.toAddress) values.push(filter.toAddress);
  if (shape.startTime) values.push(filter.startTime);
  if (shape.endTime) values.push(filter.endTime);
  if (shape.contractId) values.push(filter.contractId);
  if (shape.functionName) values.push(filter.functionName);
  if (shape.nonce) values.push(filter.nonce);
  const [row] = await query<TxPageRow>(db, s, values);
  return txPageOf(row!);
}

// ---------------------------------------------------------------------------------------------------------------
// A block's transactions (/extended/v1/tx/block…, v2 and v3 block transactions)
// ---------------------------------------------------------------------------------------------------------------

/** How a block's transaction list names its block. */
export type TxBlockKey =
  | { kind: 'height'; height: number }
  /** Block hash only (the reference's v1 `/tx/block/{hash}`). */
  | { kind: 'blockHash'; hash: string }
  /** Block hash or index block hash (the v2 and v3 lists). */
  | { kind: 'anyHash'; hash: string }
  | { kind: 'latest' };

const BLOCK_WHERE: Record<TxBlockKey['kind'], string> = {
  height: 'b.block_height = $3::int',
  blockHash: 'b.block_hash = $3::text',
  anyHash: '(b.index_block_hash = $3::text OR b.block_hash = $3::text)',
  latest: 'b.block_height = tip.block_height AND $3::text IS NULL',
};

/**
 * The canonical block named by `$3` (the highest when a hash names several), the number of its transactions (bounded
 * by the block), and a page of them (`txs_block`) in the order given: v1 lists them as its `Block.txs` (anchored ones
 * first, then microblock ones from the newest, each from the highest position down), v2 and v3 in execution order.
 */
function blockTxsText(kind: TxBlockKey['kind'], order: 'asc' | 'desc'): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const bound = `LEFT JOIN LATERAL (
     SELECT b.index_block_hash, b.block_height FROM blocks b
     WHERE b.canonical AND ${BLOCK_WHERE[kind]} ORDER BY b.block_height DESC LIMIT 1
   ) blk ON true`;
  const keys = `SELECT x.tx_id, x.index_block_hash, row_number() OVER (ORDER BY ${SEQ} ${dir}, x.tx_index ${dir}) AS pos
     FROM txs x WHERE x.index_block_hash = blk.index_block_hash
     ORDER BY ${SEQ} ${dir}, x.tx_index ${dir} LIMIT $1 OFFSET $2`;
  return txPageText('(SELECT count(*) FROM txs x WHERE x.index_block_hash = blk.index_block_hash)', keys, bound).replace(
    'SELECT ' + TIP_SELECT + ', c.total,',
    'SELECT ' + TIP_SELECT + ', blk.index_block_hash AS block_found, c.total,',
  );
}

const BLOCK_TXS = new Map<string, Statement>();

/** A page of a canonical block's transactions; `found` false when no canonical block matches. */
export async function getBlockTxs(
  db: Knex,
  key: TxBlockKey,
  page: { limit: number; offset: number; order: 'asc' | 'desc' },
): Promise<TxPage & { found: boolean }> {
  const k = `${key.kind} ${page.order}`;
  let s = BLOCK_TXS.get(k);
  if (!s) BLOCK_TXS.set(k, (s = statement(blockTxsText(key.kind, page.order))));
  const value = key.kind === 'height' ? key.height : key.kind === 'latest' ? null : key.hash;
  const [row] = await query<TxPageRow & { block_found: string | null }>(db, s, [page.limit, page.offset, value]);
  return { ...txPageOf(row!), found: row!.block_found !== null };
}

// ---------------------------------------------------------------------------------------------------------------
// /extended/v1/tx/multiple, /{tx_id}/raw
// ---------------------------------------------------------------------------------------------------------------

/**
 * Raw bytes of a transaction: of its canonical mined row (`txs_canonical_tx`), else of the mempool's (primary key).
 * Burnchain operations (stored as `0x00`) have no bytes of their own: the reference shows what it stored, `0x00`.
 */
const RAW_TX = statement(
  `SELECT coalesce(
     (SELECT x.raw_tx FROM txs x WHERE x.tx_id = $1 AND x.canonical LIMIT 1),
     (SELECT m.raw_tx FROM mempool_txs m WHERE m.tx_id = $1)
   ) AS raw_tx`,
);

export async function getRawTx(db: Knex, txId: string): Promise<Buffer | null> {
  const [row] = await query<{ raw_tx: Buffer | null }>(db, RAW_TX, [txId]);
  return row?.raw_tx ?? null;
}

/** The event types of the reference's `/extended/v1/tx/events` filter, as the node's event types stored here. */
export const EVENT_TYPE_GROUPS: Record<string, string[]> = {
  smart_contract_log: ['contract_event'],
  stx_lock: ['stx_lock_event'],
  stx_asset: ['stx_transfer_event', 'stx_mint_event', 'stx_burn_event'],
  fungible_token_asset: ['ft_transfer_event', 'ft_mint_event', 'ft_burn_event'],
  non_fungible_token_asset: ['nft_transfer_event', 'nft_mint_event', 'nft_burn_event'],
};

const EVENT_COLUMNS = `e.index_block_hash, e.event_index, e.tx_id, e.tx_index, e.block_height, e.type, e.committed,
  e.asset_identifier, e.sender, e.recipient, e.amount, e.memo, e.value_hex, e.value_repr, e.contract_identifier, e.topic,
  e.locked_amount, e.unlock_height, e.locked_address, e.canonical`;

/**
 * `/extended/v1/tx/events` for a transaction: its canonical events of the types `$2`, newest first (`events_tx` on the
 * canonical row of the transaction).
 */
const EVENTS_OF_TX = statement(
  `SELECT ${TIP_SELECT}, ev.*
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${EVENT_COLUMNS} FROM txs t JOIN events e ON e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash
     WHERE t.tx_id = $1 AND t.canonical AND e.canonical AND e.type = ANY($2::text[])
     ORDER BY e.event_index DESC LIMIT $3 OFFSET $4
   ) ev ON true`,
);

/**
 * A page of a transaction's events (`types`, the stored event types), newest first. A principal's events are read from
 * their kept texts (`principal-events.ts`, ADR 0038).
 */
export async function getEvents(
  db: Knex,
  of: { txId: string; types: string[] },
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; events: DbEvent[] }> {
  const rows = await query<TipColumns & { tx_id: string | null }>(db, EVENTS_OF_TX, [of.txId, of.types, page.limit, page.offset]);
  return { tip: tipOf(rows[0]!), events: rowsCarrying<DbEvent>(rows, 'tx_id') };
}

// ---------------------------------------------------------------------------------------------------------------
// /extended/v1/tx/mempool/stats
// ---------------------------------------------------------------------------------------------------------------

export interface DbMempoolStatsRow {
  type_id: string;
  n: string;
  fees: number[] | null;
  ages: Array<number | null> | null;
  sizes: number[] | null;
}

/**
 * Per type of the pending transactions: how many, and the 25th, 50th, 75th and 95th percentiles (continuous, as the
 * reference) of their fees, ages in blocks (the tip's height less the tip's height when they arrived; rows from before
 * that was recorded are left out) and sizes in bytes. The pending set is bounded by the node (`mempool_pending`).
 */
const MEMPOOL_STATS = statement(
  `SELECT m.type_id, count(*) AS n,
     percentile_cont(ARRAY[0.25, 0.5, 0.75, 0.95]) WITHIN GROUP (ORDER BY m.fee_rate::float8) AS fees,
     percentile_cont(ARRAY[0.25, 0.5, 0.75, 0.95]) WITHIN GROUP (ORDER BY (tip.block_height - m.receipt_block_height)::float8) AS ages,
     percentile_cont(ARRAY[0.25, 0.5, 0.75, 0.95]) WITHIN GROUP (ORDER BY octet_length(m.raw_tx)::float8) AS sizes
   FROM mempool_txs m LEFT JOIN chain_tip tip ON true
   WHERE m.status = 'pending'
   GROUP BY m.type_id`,
);

export async function getMempoolStats(db: Knex): Promise<DbMempoolStatsRow[]> {
  return query<DbMempoolStatsRow>(db, MEMPOOL_STATS, []);
}
