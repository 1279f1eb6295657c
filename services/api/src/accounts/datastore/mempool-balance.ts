import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

/** What the principal's pending mempool transactions would move, in micro-STX (decimal strings). */
export interface DbMempoolStxDelta {
  inbound: string;
  outbound: string;
}

/**
 * Pending transactions only: outbound is the amount of the token transfers it sends plus the fees it pays (as sender
 * of an unsponsored one or sponsor of a sponsored one); inbound the token transfers it receives, as the reference API
 * counts them.
 */
const MEMPOOL_DELTA = statement(
  `SELECT
     coalesce((SELECT sum(CASE WHEN m.type_id = 'token_transfer' THEN (m.payload->>'amount')::numeric ELSE 0 END
                          + CASE WHEN m.sponsor_address IS NULL THEN m.fee_rate ELSE 0 END)
               FROM mempool_txs m WHERE m.status = 'pending' AND m.sender_address = $1), 0)
     + coalesce((SELECT sum(m.fee_rate) FROM mempool_txs m WHERE m.status = 'pending' AND m.sponsor_address = $1), 0)
       AS outbound,
     coalesce((SELECT sum((m.payload->>'amount')::numeric) FROM mempool_txs m
               WHERE m.status = 'pending' AND m.type_id = 'token_transfer' AND m.payload->>'recipient_address' = $1), 0)
       AS inbound`,
);

export async function getMempoolStxDelta(db: Knex, principal: string): Promise<DbMempoolStxDelta> {
  const [row] = await query<DbMempoolStxDelta>(db, MEMPOOL_DELTA, [principal]);
  return { inbound: row?.inbound ?? '0', outbound: row?.outbound ?? '0' };
}
