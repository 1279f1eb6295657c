import { statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';

/**
 * What each address of `$1` (an array: one lookup or a batch, see `KeyedBatchLoader`) holds that resolves now, in
 * name order, as the JSON text of an array of names: names whose current owner it is and whose lease is running (not
 * expired, not in the grace period, not revoked: what the contract's `name-resolve` accepts), and subdomains whose
 * current record it owns.
 *
 * The indexer keeps that text per address (`bns_address_names`, migration 094, ADR 0034) with the tip heights over which
 * it holds: one row by key, copied into the answer as it is. When the tip is outside the row's range (an expiry the
 * indexer has not yet caught up with) or the address has no row (it never held a name), the text is made here from
 * the current-state tables (migration 075: one index range on each), exactly as the indexer makes it; COALESCE
 * evaluates that only then. PostgreSQL writes the array (`array_to_json`, no spaces, as `JSON.stringify` would).
 */
export const NAMES_OF_ADDRESSES = statement(
  `SELECT k.address, coalesce(
     (SELECT a.names FROM bns_address_names a
      WHERE a.address = k.address COLLATE "C" AND t.h BETWEEN a.valid_from AND a.valid_until),
     array_to_json(ARRAY(
       SELECT fqn FROM bns_names_current
       WHERE address = k.address COLLATE "C" AND NOT revoked AND (expire_block = 0 OR expire_block >= t.h)
       UNION ALL
       SELECT fqn FROM bns_subdomains_current WHERE owner = k.address COLLATE "C"
       ORDER BY 1
     ))::text) AS names
   FROM unnest($1::text[]) AS k(address),
        (SELECT coalesce((SELECT block_height FROM chain_tip), 0)::bigint AS h) t`,
);

/** For each of `addresses`, the JSON text of the names and subdomains it holds, in name order (`[]` for none). */
export async function ownedNamesJson(db: NamesDb, addresses: string[]): Promise<Map<string, string>> {
  const rows = await db.query<{ address: string; names: string }>(NAMES_OF_ADDRESSES, [addresses]);
  return new Map(rows.map((r) => [r.address, r.names]));
}
