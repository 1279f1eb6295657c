import { statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';

/**
 * What each address of `$1` (an array: one lookup or a batch, see `KeyedBatchLoader`) holds that resolves now, in
 * name order, as the JSON text of an array of names: names whose current owner it is and whose lease is running (not
 * expired, not in the grace period, not revoked: what the contract's `name-resolve` accepts), and subdomains whose
 * current record it owns. One index range on each current-state table (migration 075) per address: the cost follows
 * what the address holds, not the tables' size. PostgreSQL writes the array (`array_to_json`, no spaces, as
 * `JSON.stringify` would): one short text per address instead of a row per name for node-postgres to parse and the
 * api to serialize again (an address holding 60 names cost the api 290 µs a lookup that way, twice a name's).
 */
export const NAMES_OF_ADDRESSES = statement(
  `SELECT k.address, array_to_json(ARRAY(
     SELECT fqn FROM bns_names_current
     WHERE address = k.address COLLATE "C" AND NOT revoked
       AND (expire_block = 0 OR expire_block >= coalesce((SELECT block_height FROM chain_tip), 0))
     UNION ALL
     SELECT fqn FROM bns_subdomains_current WHERE owner = k.address COLLATE "C"
     ORDER BY 1
   ))::text AS names
   FROM unnest($1::text[]) AS k(address)`,
);

/** For each of `addresses`, the JSON text of the names and subdomains it holds, in name order (`[]` for none). */
export async function ownedNamesJson(db: NamesDb, addresses: string[]): Promise<Map<string, string>> {
  const rows = await db.query<{ address: string; names: string }>(NAMES_OF_ADDRESSES, [addresses]);
  return new Map(rows.map((r) => [r.address, r.names]));
}
