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

/** Each order is one of the partial indexes of pending rows read forwards or backwards; ties by tx id. */
const ORDERS: Record<MempoolOrderBy, Record<'asc' | 'desc', string>> = {
  age: { desc: 'm.receipt_time DESC, m.tx_id ASC', asc: 'm.receipt_time ASC, m.tx_id DESC' }, // `mempool_pending`
  fee: { desc: 'm.fee_rate DESC, m.tx_id DESC', asc: 'm.fee_rate ASC, m.tx_id ASC' }, // `mempool_pending_fee`
  size: { desc: 'octet_length(m.raw_tx) DESC, m.tx_id DESC', asc: 'octet_length(m.raw_tx) ASC, m.tx_id ASC' }, // `_size`
};

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
 * - The page skips its offset over index entries only (`tx_id` is in each order's partial index), then reads the
 *   page's rows by primary key (`OFFSET 0` keeps that LATERAL whole), as the address history does (ADR 0017): a deep
 *   page no longer reads the rows it skips. The walk itself is bounded by the node's mempool (or the principal's
 *   pending rows under a filter); the size order's index is on an expression, so it reads the rows it skips.
 */
function pendingPage(orderBy: MempoolOrderBy, order: 'asc' | 'desc', filter: Parameters<typeof pendingMatching>[0]): string {
  const where = pendingMatching(filter);
  const given = (['sender', 'recipient', 'address'] as const).filter((f) => filter[f]);
  const ordering = ORDERS[orderBy][order];
  const total =
    given.length === 0
      ? 'SELECT pending AS total FROM mempool_pending_count'
      : given.length === 1
        ? `SELECT coalesce((SELECT k.${KEPT_COUNT[given[0]!]} FROM mempool_principal_counts k WHERE k.principal = $3), 0) AS total`
        : `SELECT count(*) AS total FROM mempool_txs m WHERE ${where}`;
  return `SELECT c.total, ${mempoolSelect('h')}, ${ABI_SELECT}
   FROM (${total}) c
   LEFT JOIN LATERAL (
     SELECT page.*, ${firstCallOf('page')} AS first_call
     FROM (
       SELECT r.*, k.pos
       FROM (
         SELECT m.tx_id, row_number() OVER (ORDER BY ${ordering}) AS pos
         FROM mempool_txs m WHERE ${where}
         ORDER BY ${ordering} LIMIT $1 OFFSET $2
       ) k
       CROSS JOIN LATERAL (
         SELECT ${mempoolSelect('m')}, ${calledContract('m')} AS called FROM mempool_txs m WHERE m.tx_id = k.tx_id OFFSET 0
       ) r
     ) page
   ) h ON true
   ${deployAbi('h.first_call')}
   ORDER BY h.pos`;
}

/** One statement per order and combination of filters, built when first asked for (30 at most). */
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
  const key = `${orderBy} ${order} ${+filter.sender}${+filter.recipient}${+filter.address}`;
  let s = PAGES.get(key);
  if (!s) PAGES.set(key, (s = statement(pendingPage(orderBy, order, filter))));
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
