import { statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';

/**
 * What an address holds that resolves now, in name order: names whose current owner it is and whose lease is running
 * (not expired, not in the grace period, not revoked: what the contract's `name-resolve` accepts), and subdomains
 * whose current record it owns. One index range on each current-state table (migration 075): the cost follows what
 * the address holds, not the tables' size.
 */
export const NAMES_OF_ADDRESS = statement(
  `SELECT fqn FROM (
     SELECT fqn FROM bns_names_current
     WHERE address = $1 AND NOT revoked
       AND (expire_block = 0 OR expire_block >= coalesce((SELECT block_height FROM chain_tip), 0))
     UNION ALL
     SELECT fqn FROM bns_subdomains_current WHERE owner = $1
   ) owned ORDER BY fqn`,
);

export async function namesOwnedBy(db: NamesDb, address: string): Promise<string[]> {
  return (await db.query<{ fqn: string }>(NAMES_OF_ADDRESS, [address])).map((r) => r.fqn);
}
