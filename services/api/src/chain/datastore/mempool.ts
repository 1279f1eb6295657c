import type { Knex } from 'knex';
import { MEMPOOL_TX_JSON_COLUMNS, UnexpectedRowError, type DbMempoolTxJsonRow } from '@bda/db';
import { query, statement, type Statement } from '../../datastore/read-statement';

/** A mempool row without its raw bytes. */
export type DbMempoolTxRow = DbMempoolTxJsonRow;

/** The columns a mempool row is rendered from: `@bda/db`'s list, the one the indexer renders its kept texts from. */
const MEMPOOL_COLUMNS = MEMPOOL_TX_JSON_COLUMNS;

/** `alias.<column>` for each mempool column, named `<prefix><column>` (read back by `prefixedMempoolTxOf`). */
export function mempoolSelect(alias: string, prefix = ''): string {
  return MEMPOOL_COLUMNS.map((c) => `${alias}.${c}${prefix ? ` AS ${prefix}${c}` : ''}`).join(', ');
}

/** The mempool row a statement's row carries as `mempoolSelect(alias, prefix)`, or null when it has none. */
export function prefixedMempoolTxOf(row: object, prefix: string): DbMempoolTxRow | null {
  const r = row as Record<string, unknown>;
  if (r[`${prefix}tx_id`] === null) return null;
  const out: Record<string, unknown> = {};
  for (const c of MEMPOOL_COLUMNS) out[c] = r[`${prefix}${c}`];
  return out as DbMempoolTxRow;
}

/** What `/extended/v1/tx/mempool` filters on; `address` stands alone (the route refuses it with the others). */
export interface MempoolFilter {
  senderAddress?: string;
  /** The recipient of a token transfer. */
  recipientAddress?: string;
  /** Sender, token-transfer recipient, or the contract deployed or called. */
  address?: string;
}

/** `age` = receipt time (the default), `size` = serialized bytes, `fee` = fee rate. */
export type MempoolOrderBy = 'age' | 'size' | 'fee';

/** Each order's key over rows `alias`: the first column of one of the partial indexes of pending rows (read either way). */
const ORDER_KEYS: Record<MempoolOrderBy, (alias: string) => string> = {
  age: (a) => `${a}.receipt_time`, // `mempool_pending`
  fee: (a) => `${a}.fee_rate`, // `mempool_pending_fee`
  size: (a) => `octet_length(${a}.raw_tx)`, // `mempool_pending_size`
};

/**
 * The ORDER BY of an order over rows `alias` whose key is `key` (an expression over the alias, or a column of a
 * subquery that selected it). Ties by tx id: ascending under the newest-first age order, else the key's direction.
 */
function ordering(orderBy: MempoolOrderBy, order: 'asc' | 'desc', alias: string, key: string): string {
  const dir = order === 'desc' ? 'DESC' : 'ASC';
  const tie = orderBy === 'age' ? (order === 'desc' ? 'ASC' : 'DESC') : dir;
  return `${key} ${dir}, ${alias}.tx_id ${tie}`;
}

/**
 * The pending rows matching the filters given, `$3…` in the order sender, recipient, address. With `address`, each
 * branch has a partial index of its own (`mempool_pending_sender`, `_recipient`, `_contract`): a bitmap OR.
 */
function pendingMatching(filter: { sender: boolean; recipient: boolean; address: boolean }): string {
  const conditions = ["m.status = 'pending'"];
  let n = 2;
  if (filter.sender) conditions.push(`m.sender_address = $${++n}`);
  if (filter.recipient) conditions.push(`m.payload->>'recipient_address' = $${++n}`);
  if (filter.address) {
    const p = `$${++n}`;
    conditions.push(`(m.sender_address = ${p} OR m.payload->>'recipient_address' = ${p} OR m.contract_id = ${p})`);
  }
  return conditions.join(' AND ');
}

/** The column of `mempool_principal_counts` (migration 090) that is the total of a list with one filter. */
const KEPT_COUNT = { sender: 'as_sender', recipient: 'as_recipient', address: 'as_party' } as const;

/** Pending rows (`tx_id`, `sort_key`) of one index range: `condition` over `mempool_txs m`, the order's first `$1 + $2`. */
function addressBranch(orderBy: MempoolOrderBy, order: 'asc' | 'desc', condition: string): string {
  const key = ORDER_KEYS[orderBy];
  return `(SELECT m.tx_id, ${key('m')} AS sort_key FROM mempool_txs m WHERE m.status = 'pending' AND ${condition}
     ORDER BY ${ordering(orderBy, order, 'm', key('m'))} LIMIT $1::bigint + $2::bigint)`;
}

/**
 * The keys (`tx_id`, `sort_key`) of the page's pending rows in the order, `$1` limit, `$2` offset.
 * - The offset is skipped over index entries only (`tx_id` is in each order's partial index): a deep page reads no
 *   row it skips. The walk is bounded by the node's mempool (or the principal's pending rows under a filter); the
 *   size order's index is on an expression, so it reads the rows it skips.
 * - `address` in the age order (the default, and v1 `/address/{p}/mempool`) is the union of three index ranges, each
 *   cut at the page's end (`mempool_pending_sender`, `_recipient`, `_contract`, all in the age order): at most
 *   `3 × (limit + offset)` entries, however many the principal has pending, instead of a bitmap OR over all of them
 *   and a sort. A transaction in two ranges (a self-transfer) is one row of the union. The other orders keep the OR.
 */
function pageKeys(orderBy: MempoolOrderBy, order: 'asc' | 'desc', filter: Parameters<typeof pendingMatching>[0]): string {
  const key = ORDER_KEYS[orderBy];
  if (filter.address && orderBy === 'age') {
    const branches = ['m.sender_address = $3', "m.payload->>'recipient_address' = $3", 'm.contract_id = $3'];
    return `SELECT u.tx_id, u.sort_key FROM (${branches.map((b) => addressBranch(orderBy, order, b)).join(' UNION ')}) u
      ORDER BY ${ordering(orderBy, order, 'u', 'u.sort_key')} LIMIT $1 OFFSET $2`;
  }
  return `SELECT m.tx_id, ${key('m')} AS sort_key FROM mempool_txs m WHERE ${pendingMatching(filter)}
      ORDER BY ${ordering(orderBy, order, 'm', key('m'))} LIMIT $1 OFFSET $2`;
}

/**
 * A page of pending transactions as the kept list texts (`mempool_tx_json`, migration 105, ADR 0041) joined with
 * `,` in the order, with the number of pending transactions matching the filter, in one statement (`$1` limit, `$2`
 * offset, then the filter's values). The number is a kept row: of all pending transactions (migration 086), or of
 * the principal's under the one filter given (migration 090); only `sender_address` with `recipient_address`
 * counts, over the sender's pending rows. Each key is joined to its text by primary key in a LATERAL that `OFFSET 0`
 * keeps whole (ADR 0017: a generic plan could otherwise hash-join a guessed share of the table). `n` and `kept`
 * count the page's keys and texts: a pending row without its text is an indexer/api mismatch.
 */
function pendingPage(orderBy: MempoolOrderBy, order: 'asc' | 'desc', filter: Parameters<typeof pendingMatching>[0]): string {
  const given = (['sender', 'recipient', 'address'] as const).filter((f) => filter[f]);
  const total =
    given.length === 0
      ? 'SELECT pending AS total FROM mempool_pending_count'
      : given.length === 1
        ? `SELECT coalesce((SELECT k.${KEPT_COUNT[given[0]!]} FROM mempool_principal_counts k WHERE k.principal = $3), 0) AS total`
        : `SELECT count(*) AS total FROM mempool_txs m WHERE ${pendingMatching(filter)}`;
  return `SELECT c.total, p.texts, p.n, p.kept
   FROM (${total}) c
   CROSS JOIN LATERAL (
     SELECT string_agg(j.json, ',' ORDER BY k.pos) AS texts, count(*) AS n, count(j.json) AS kept
     FROM (
       SELECT w.tx_id, row_number() OVER (ORDER BY ${ordering(orderBy, order, 'w', 'w.sort_key')}) AS pos
       FROM (${pageKeys(orderBy, order, filter)}) w
     ) k
     LEFT JOIN LATERAL (SELECT j.json FROM mempool_tx_json j WHERE j.tx_id = k.tx_id OFFSET 0) j ON true
   ) p`;
}

/** One statement per order and combination of filters, built when first asked for (30 at most). */
const PAGES = new Map<string, Statement>();

/**
 * Pending transactions in the requested order as their kept list texts joined with `,` (`''` for none), and the
 * number matching the filter: one statement (one snapshot).
 */
export async function getPendingMempoolPage(
  db: Knex,
  opts: MempoolFilter & { limit: number; offset: number; orderBy?: MempoolOrderBy; order?: 'asc' | 'desc' },
): Promise<{ texts: string; count: number; total: number }> {
  const { senderAddress, recipientAddress, address } = opts;
  const filter = {
    sender: senderAddress !== undefined,
    recipient: recipientAddress !== undefined,
    address: address !== undefined,
  };
  const orderBy = opts.orderBy ?? 'age';
  const order = opts.order ?? 'desc';
  const key = `${orderBy} ${order} ${+filter.sender}${+filter.recipient}${+filter.address}`;
  let s = PAGES.get(key);
  if (!s) PAGES.set(key, (s = statement(pendingPage(orderBy, order, filter))));
  const values: unknown[] = [opts.limit, opts.offset];
  for (const v of [senderAddress, recipientAddress, address]) if (v !== undefined) values.push(v);
  const [row] = await query<{ total: string; texts: string | null; n: string; kept: string }>(db, s, values);
  if (!row) throw new UnexpectedRowError('the mempool page statement returned no row');
  if (row.kept !== row.n) {
    throw new UnexpectedRowError(`${Number(row.n) - Number(row.kept)} pending transactions of the page have no kept list text`);
  }
  return { texts: row.texts ?? '', count: Number(row.n), total: Number(row.total) };
}
