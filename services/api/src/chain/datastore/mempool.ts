import type { Knex } from 'knex';
import type { DbMempoolTx } from '@bda/db';
import { ABI_SELECT, abisOf, calledContract, deployAbi, firstCallOf, type ContractAbis } from './contract-abis';
import { query, rowsCarrying, statement, type Statement } from '../../datastore/read-statement';

/** A mempool row without its raw bytes. */
export type DbMempoolTxRow = Omit<DbMempoolTx, 'raw_tx'>;

const MEMPOOL_COLUMNS = [
  'tx_id',
  'type_id',
  'sender_address',
  'sponsor_address',
  'nonce',
  'sponsor_nonce',
  'fee_rate',
  'payload',
  'post_conditions',
  'post_condition_mode',
  'anchor_mode',
  'contract_id',
  'status',
  'replaced_by_tx_id',
  'receipt_time',
  'receipt_block_height',
];

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

/**
 * A page of pending transactions with the number of pending transactions matching the filter and the ABIs of the
 * contracts the page calls, in one statement (`$1` limit, `$2` offset, then the filter's values).
 * - The number is a kept row: of all pending transactions (migration 086), or of the principal's under the one filter
 *   given (migration 090); only `sender_address` with `recipient_address` counts, over the sender's pending rows.
 * - A later page (`walk`) skips its offset over index entries only (`tx_id` is in each order's partial index), then
 *   reads the page's rows by primary key (`OFFSET 0` keeps that LATERAL whole), as the address history does (ADR
 *   0017): a deep page does not read the rows it skips. The walk itself is bounded by the node's mempool (or the
 *   principal's pending rows under a filter); the size order's index is on an expression, so it reads the rows it
 *   skips. The rows are numbered after the LIMIT (a window over the page, not over every entry skipped: offset 980,
 *   0.54–0.86 against 0.82–1.24 ms in pgbench).
 * - The first page (offset 0) skips nothing, so it reads its rows straight from the order's index scan: one heap row
 *   each, instead of an index-only entry and a primary-key probe (4 buffers) each (85 against about 25 buffers).
 */
function pendingPage(
  orderBy: MempoolOrderBy,
  order: 'asc' | 'desc',
  filter: Parameters<typeof pendingMatching>[0],
  walk: boolean,
): string {
  const where = pendingMatching(filter);
  const given = (['sender', 'recipient', 'address'] as const).filter((f) => filter[f]);
  const key = ORDER_KEYS[orderBy];
  const total =
    given.length === 0
      ? 'SELECT pending AS total FROM mempool_pending_count'
      : given.length === 1
        ? `SELECT coalesce((SELECT k.${KEPT_COUNT[given[0]!]} FROM mempool_principal_counts k WHERE k.principal = $3), 0) AS total`
        : `SELECT count(*) AS total FROM mempool_txs m WHERE ${where}`;
  const rows = walk
    ? `SELECT r.*, k.pos
       FROM (
         SELECT w.tx_id, row_number() OVER (ORDER BY ${ordering(orderBy, order, 'w', 'w.sort_key')}) AS pos
         FROM (
           SELECT m.tx_id, ${key('m')} AS sort_key
           FROM mempool_txs m WHERE ${where}
           ORDER BY ${ordering(orderBy, order, 'm', key('m'))} LIMIT $1 OFFSET $2
         ) w
       ) k
       CROSS JOIN LATERAL (
         SELECT ${mempoolSelect('m')}, ${calledContract('m')} AS called FROM mempool_txs m WHERE m.tx_id = k.tx_id OFFSET 0
       ) r`
    : `SELECT r.*, row_number() OVER (ORDER BY ${ordering(orderBy, order, 'r', 'r.sort_key')}) AS pos
       FROM (
         SELECT ${mempoolSelect('m')}, ${calledContract('m')} AS called, ${key('m')} AS sort_key
         FROM mempool_txs m WHERE ${where}
         ORDER BY ${ordering(orderBy, order, 'm', key('m'))} LIMIT $1 OFFSET $2
       ) r`;
  return `SELECT c.total, ${mempoolSelect('h')}, ${ABI_SELECT}
   FROM (${total}) c
   LEFT JOIN LATERAL (
     SELECT page.*, ${firstCallOf('page')} AS first_call
     FROM (${rows}) page
   ) h ON true
   ${deployAbi('h.first_call')}
   ORDER BY h.pos`;
}

/** One statement per order, combination of filters and kind of page, built when first asked for (60 at most). */
const PAGES = new Map<string, Statement>();

/**
 * Pending transactions in the requested order, the number matching the filter, and the ABIs of the contracts the
 * page calls: one statement (one snapshot).
 */
export async function getPendingMempoolPage(
  db: Knex,
  opts: MempoolFilter & { limit: number; offset: number; orderBy?: MempoolOrderBy; order?: 'asc' | 'desc' },
): Promise<{ rows: DbMempoolTxRow[]; total: number; abis: ContractAbis }> {
  const { senderAddress, recipientAddress, address } = opts;
  const filter = {
    sender: senderAddress !== undefined,
    recipient: recipientAddress !== undefined,
    address: address !== undefined,
  };
  const orderBy = opts.orderBy ?? 'age';
  const order = opts.order ?? 'desc';
  const walk = opts.offset > 0;
  const key = `${orderBy} ${order} ${+filter.sender}${+filter.recipient}${+filter.address} ${+walk}`;
  let s = PAGES.get(key);
  if (!s) PAGES.set(key, (s = statement(pendingPage(orderBy, order, filter, walk))));
  const values: unknown[] = [opts.limit, opts.offset];
  for (const v of [senderAddress, recipientAddress, address]) if (v !== undefined) values.push(v);
  const rows = await query<{ total: string; tx_id: string | null; abi_contract_id: string | null; contract_abi: unknown }>(
    db,
    s,
    values,
  );
  return {
    rows: rowsCarrying<DbMempoolTxRow>(rows, 'tx_id'),
    total: Number(rows[0]?.total ?? 0),
    abis: abisOf(rows),
  };
}
