import { statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';

/**
 * What an address holds that resolves now, in name order: names whose current owner it is and whose lease is running
 * (not expired, not in the grace period, not revoked: what the contract's `name-resolve` accepts), and subdomains
 * whose current record it owns. The cost follows the rows naming the address, not the tables' size.
 */
export const NAMES_OF_ADDRESS = statement(
  `WITH tip AS (SELECT coalesce((SELECT block_height FROM chain_tip), 0) AS height)
   SELECT fqn FROM (
     SELECT c.fqn
     FROM (SELECT DISTINCT fqn FROM bns_names WHERE address = $1) a
     CROSS JOIN LATERAL (
       SELECT * FROM bns_names n WHERE n.fqn = a.fqn ORDER BY block_height DESC, tx_index DESC, event_index DESC LIMIT 1
     ) c
     LEFT JOIN LATERAL (
       SELECT lifetime, revealed_at, launched_at FROM bns_namespaces WHERE namespace_id = c.namespace_id
       ORDER BY block_height DESC, tx_index DESC, event_index DESC LIMIT 1
     ) ns ON true, tip
     WHERE c.address = $1 AND NOT c.revoked
       AND (coalesce(ns.lifetime, 0) = 0
            OR tip.height <= ns.lifetime + CASE
                 WHEN c.registered_at IS NOT NULL THEN c.registered_at
                 WHEN c.imported_at BETWEEN ns.revealed_at AND ns.launched_at THEN ns.launched_at
                 ELSE 0 END)
     UNION ALL
     SELECT c.fqn
     FROM (SELECT DISTINCT fqn FROM bns_subdomains WHERE owner = $1) a
     CROSS JOIN LATERAL (
       SELECT fqn, owner FROM bns_subdomains s WHERE s.fqn = a.fqn ORDER BY seqn DESC, block_height, tx_index LIMIT 1
     ) c
     WHERE c.owner = $1
   ) owned ORDER BY fqn`,
);

export async function namesOwnedBy(db: NamesDb, address: string): Promise<string[]> {
  return (await db.query<{ fqn: string }>(NAMES_OF_ADDRESS, [address])).map((r) => r.fqn);
}
