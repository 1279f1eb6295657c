import type { Knex } from 'knex';
import type { DbBnsName } from '@bda/db';
import { query, statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';
import { NAMES_PAGE_SIZE } from '../routes/bns-params';

/** The newest row of a name: its current state (rows exist for canonical blocks and the genesis import only). */
const LATEST_NAME = `SELECT * FROM bns_names WHERE fqn = $1 ORDER BY block_height DESC, tx_index DESC, event_index DESC LIMIT 1`;

/** A name's current state with what its expiry needs (its namespace's lease rules) and its zonefile. */
export interface DbBnsNameState extends DbBnsName {
  lifetime: string | null;
  revealed_at: number | null;
  launched_at: number | null;
  zonefile: string | null;
}

export const NAME_STATE = statement(
  `SELECT n.*, ns.lifetime, ns.revealed_at, ns.launched_at, z.zonefile
   FROM (${LATEST_NAME}) n
   LEFT JOIN LATERAL (
     SELECT lifetime, revealed_at, launched_at FROM bns_namespaces WHERE namespace_id = n.namespace_id
     ORDER BY block_height DESC, tx_index DESC, event_index DESC LIMIT 1
   ) ns ON true
   LEFT JOIN bns_zonefiles z ON z.zonefile_hash = n.zonefile_hash`,
);

export async function getNameState(db: NamesDb, fqn: string): Promise<DbBnsNameState | undefined> {
  const [row] = await db.query<DbBnsNameState>(NAME_STATE, [fqn]);
  return row;
}

const NAMES_PAGE = statement(`SELECT DISTINCT fqn FROM bns_names ORDER BY fqn LIMIT ${NAMES_PAGE_SIZE} OFFSET $1`);

/** A page of every name ever registered or imported (canonical), in name order. */
export async function listNames(db: Knex, offset: number): Promise<string[]> {
  return (await query<{ fqn: string }>(db, NAMES_PAGE, [offset])).map((r) => r.fqn);
}

const HISTORICAL_ZONEFILE = statement(
  `SELECT z.zonefile FROM bns_zonefiles z
   WHERE z.zonefile_hash = $2 AND EXISTS (SELECT 1 FROM bns_names n WHERE n.fqn = $1 AND n.zonefile_hash = $2)`,
);

/** A zonefile the name pointed to at some time (now or before), if it is stored. */
export async function getNameZonefileByHash(db: Knex, fqn: string, hash: string): Promise<string | undefined> {
  const [row] = await query<{ zonefile: string }>(db, HISTORICAL_ZONEFILE, [fqn, hash]);
  return row?.zonefile;
}
