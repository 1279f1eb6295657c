import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

/** A pending mempool transaction as its Rosetta operations need it. */
export interface DbRosettaMempoolTx {
  tx_id: string;
  type_id: string;
  sender_address: string;
  sponsor_address: string | null;
  fee_rate: string;
  nonce: string;
  payload: Record<string, unknown>;
  contract_id: string | null;
}

const PENDING_IDS = statement(
  `SELECT m.tx_id FROM mempool_txs m WHERE m.status = 'pending' ORDER BY m.receipt_time DESC, m.tx_id ASC`,
);

const PENDING_TX = statement(
  `SELECT m.tx_id, m.type_id, m.sender_address, m.sponsor_address, m.fee_rate::text AS fee_rate, m.nonce::text AS nonce,
          m.payload, m.contract_id
   FROM mempool_txs m WHERE m.tx_id = $1 AND m.status = 'pending'`,
);

/** Ids of every pending mempool transaction, newest first. */
export async function getRosettaMempoolTxIds(db: Knex): Promise<string[]> {
  return (await query<{ tx_id: string }>(db, PENDING_IDS, [])).map((r) => r.tx_id);
}

/** A pending mempool transaction, or null. */
export async function getRosettaMempoolTx(db: Knex, txId: string): Promise<DbRosettaMempoolTx | null> {
  const [row] = await query<DbRosettaMempoolTx>(db, PENDING_TX, [txId]);
  return row ?? null;
}
