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
 * counts them. One row by its key: the sums are kept as the mempool changes (migration 085).
 */
const MEMPOOL_DELTA = statement(`SELECT outbound, inbound FROM mempool_principal_stx WHERE principal = $1`);

export async function getMempoolStxDelta(db: Knex, principal: string): Promise<DbMempoolStxDelta> {
  const [row] = await query<DbMempoolStxDelta>(db, MEMPOOL_DELTA, [principal]);
  return { inbound: row?.inbound ?? '0', outbound: row?.outbound ?? '0' };
}
