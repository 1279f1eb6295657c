import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

export interface DbMempoolFeeRow {
  /** null for all pending transactions together. */
  type_id: string | null;
  no_priority: number | null;
  low_priority: number | null;
  medium_priority: number | null;
  high_priority: number | null;
}

const PRIORITIES = `round(percentile_cont(0.25) WITHIN GROUP (ORDER BY m.fee_rate::float8)) AS no_priority,
     round(percentile_cont(0.5) WITHIN GROUP (ORDER BY m.fee_rate::float8)) AS low_priority,
     round(percentile_cont(0.75) WITHIN GROUP (ORDER BY m.fee_rate::float8)) AS medium_priority,
     round(percentile_cont(0.95) WITHIN GROUP (ORDER BY m.fee_rate::float8)) AS high_priority`;

/**
 * The pending transactions' fee percentiles (25th, 50th, 75th, 95th, rounded), over all of them and per type other
 * than coinbase: the reference API's fee priorities. The pending set is bounded by the node (`mempool_pending`).
 */
const MEMPOOL_FEES = statement(
  `SELECT NULL::text AS type_id, ${PRIORITIES} FROM mempool_txs m WHERE m.status = 'pending'
   UNION ALL
   SELECT m.type_id, ${PRIORITIES} FROM mempool_txs m WHERE m.status = 'pending' AND m.type_id <> 'coinbase'
   GROUP BY m.type_id`,
);

export async function getMempoolFees(db: Knex): Promise<DbMempoolFeeRow[]> {
  return query<DbMempoolFeeRow>(db, MEMPOOL_FEES, []);
}
