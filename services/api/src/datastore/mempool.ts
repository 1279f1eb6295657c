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
];

/** A transaction the mempool knows, whatever its status (primary key lookup). */
export async function getMempoolTx(db: Knex, txId: string): Promise<DbMempoolTxRow | null> {
  const row = (await db('mempool_txs').select(MEMPOOL_COLUMNS).where('tx_id', txId).first()) as DbMempoolTxRow | undefined;
  return row ?? null;
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

function pendingMatching(db: Knex, filter: MempoolFilter): Knex.QueryBuilder {
  const q = db('mempool_txs').where('status', 'pending');
  const { address, senderAddress, recipientAddress } = filter;
  if (address !== undefined) {
    // Each branch has a partial index of its own (`mempool_pending_sender`, `_recipient`, `_contract`): a bitmap OR.
    q.andWhere((w) =>
      w
        .where('sender_address', address)
        .orWhereRaw("payload->>'recipient_address' = ?", [address])
        .orWhere('contract_id', address),
    );
  }
  if (senderAddress !== undefined) q.andWhere('sender_address', senderAddress);
  if (recipientAddress !== undefined) q.andWhereRaw("payload->>'recipient_address' = ?", [recipientAddress]);
  return q;
}

/**
 * Pending transactions in the requested order, ties by tx id: each order is one of the partial indexes read forwards
 * or backwards (`mempool_pending` for age, `mempool_pending_fee`, `mempool_pending_size`); a filter narrows to one
 * address's few rows first.
 */
export async function getPendingMempoolTxs(
  db: Knex,
  opts: MempoolFilter & { limit: number; offset: number; orderBy?: MempoolOrderBy; order?: 'asc' | 'desc' },
): Promise<DbMempoolTxRow[]> {
  const desc = (opts.order ?? 'desc') === 'desc';
  const q = pendingMatching(db, opts).select(MEMPOOL_COLUMNS);
  switch (opts.orderBy ?? 'age') {
    case 'age':
      q.orderBy([
        { column: 'receipt_time', order: desc ? 'desc' : 'asc' },
        { column: 'tx_id', order: desc ? 'asc' : 'desc' },
      ]);
      break;
    case 'fee':
      q.orderBy([
        { column: 'fee_rate', order: desc ? 'desc' : 'asc' },
        { column: 'tx_id', order: desc ? 'desc' : 'asc' },
      ]);
      break;
    case 'size':
      q.orderByRaw(desc ? 'octet_length(raw_tx) DESC, tx_id DESC' : 'octet_length(raw_tx) ASC, tx_id ASC');
      break;
  }
  return (await q.limit(opts.limit).offset(opts.offset)) as DbMempoolTxRow[];
}

/**
 * Number of pending transactions matching the filter. A count over the partial indexes of pending rows (a
 * node-bounded set of a few thousand), or over one address's rows — not over a raw event table.
 */
export async function countPendingMempoolTxs(db: Knex, filter: MempoolFilter = {}): Promise<number> {
  const [row] = (await pendingMatching(db, filter).count({ n: '*' })) as Array<{ n: string }>;
  return Number(row?.n ?? 0);
}
