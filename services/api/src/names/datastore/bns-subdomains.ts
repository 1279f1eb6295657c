import type { Knex } from 'knex';
import type { DbBnsSubdomain } from '@bda/db';
import { query, statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';

/**
 * The current record of each subdomain of `$1` (an array: one lookup or a batch, see `KeyedBatchLoader`): the highest
 * `seqn`, the first seen among equal ones (then the lowest parent zonefile hash, for the genesis import's records, all
 * at height 0): the order of `bns_subdomains_latest` and of the indexer's `bns_subdomains_current`. One descent of
 * that index per key, its first entry.
 */
export const SUBDOMAINS = statement(
  `SELECT s.* FROM unnest($1::text[]) AS k(fqn)
   CROSS JOIN LATERAL (
     SELECT * FROM bns_subdomains WHERE fqn = k.fqn COLLATE "C"
     ORDER BY seqn DESC, block_height, tx_index, parent_zonefile_hash LIMIT 1
   ) s`,
);

/** The current record of each of `fqns` that exists, by subdomain. */
export async function getSubdomains(db: NamesDb, fqns: string[]): Promise<Map<string, DbBnsSubdomain>> {
  const rows = await db.query<DbBnsSubdomain>(SUBDOMAINS, [fqns]);
  return new Map(rows.map((r) => [r.fqn, r]));
}

export async function getSubdomain(db: NamesDb, fqn: string): Promise<DbBnsSubdomain | undefined> {
  return (await getSubdomains(db, [fqn])).get(fqn);
}

const SUBDOMAINS_OF = statement(`SELECT DISTINCT fqn FROM bns_subdomains WHERE name = $1 ORDER BY fqn`);

/** The fully qualified subdomains of a name, in name order. */
export async function listSubdomains(db: Knex, name: string): Promise<string[]> {
  return (await query<{ fqn: string }>(db, SUBDOMAINS_OF, [name])).map((r) => r.fqn);
}

const SUBDOMAIN_ZONEFILE_BY_HASH = statement(`SELECT zonefile FROM bns_subdomains WHERE fqn = $1 AND zonefile_hash = $2 LIMIT 1`);

export async function getSubdomainZonefileByHash(db: Knex, fqn: string, hash: string): Promise<string | undefined> {
  const [row] = await query<{ zonefile: string }>(db, SUBDOMAIN_ZONEFILE_BY_HASH, [fqn, hash]);
  return row?.zonefile;
}
