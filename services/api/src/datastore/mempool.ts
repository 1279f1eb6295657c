import type { Knex } from 'knex';
import type { DbMempoolTx } from '@bda/db';

/** A mempool row without its raw bytes. */
export type DbMempoolTxRow = Omit<DbMempoolTx, 'raw_tx'>;

const MEMPOOL_COLUMNS = [
  'tx_id',
  'type_id',
  'sender_address',
  'sponsor_address',
  'nonce',
  'fee_rate',
  'payload',
  'post_conditions',
  'post_condition_mode',
  'anchor_mode',
  'contract_id',
  'status',
  'replaced_by_tx_id',
  'receipt_time',
];

/** A transaction the mempool knows, whatever its status (primary key lookup). */
export async function getMempoolTx(db: Knex, txId: string): Promise<DbMempoolTxRow | null> {
  const row = (await db('mempool_txs').select(MEMPOOL_COLUMNS).where('tx_id', txId).first()) as DbMempoolTxRow | undefined;
  return row ?? null;
}

/**
 * Pending transactions, newest first (ties by tx id). Without a sender this walks the partial index
 * `mempool_pending`; with one, the `sender_address` index.
 */
export async function getPendingMempoolTxs(
  db: Knex,
  opts: { limit: number; offset: number; senderAddress?: string },
): Promise<DbMempoolTxRow[]> {
  const q = db('mempool_txs').select(MEMPOOL_COLUMNS).where('status', 'pending');
  if (opts.senderAddress !== undefined) q.andWhere('sender_address', opts.senderAddress);
  return (await q
    .orderBy([
      { column: 'receipt_time', order: 'desc' },
      { column: 'tx_id', order: 'asc' },
    ])
    .limit(opts.limit)
    .offset(opts.offset)) as DbMempoolTxRow[];
}

/**
 * Number of pending transactions (optionally of one sender). This is a count over the partial index
 * `mempool_pending` (only pending rows, a node-bounded set of a few thousand) or over one sender's rows — not over a
 * raw event table. A counter maintained by the indexer would make it O(1); see the api's report.
 */
export async function countPendingMempoolTxs(db: Knex, senderAddress?: string): Promise<number> {
  const q = db('mempool_txs').count<{ n: string }[]>({ n: '*' }).where('status', 'pending');
  if (senderAddress !== undefined) q.andWhere('sender_address', senderAddress);
  const [row] = await q;
  return Number(row?.n ?? 0);
}
