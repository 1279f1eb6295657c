import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';
import { NAMES_PAGE_SIZE } from '../routes/bns-params';

/**
 * What `/v1/names/{name}` shows of a name's current state (`bns_names_current`, kept by the indexer from the history:
 * migration 075, its expiry computed there from the namespace's lease rules), and its zonefile when it has arrived.
 */
export interface DbBnsNameState {
  fqn: string;
  address: string;
  zonefile_hash: string;
  status: string;
  tx_id: string;
  /** Last block of the lease (int8 as text); '0' when it never expires. */
  expire_block: string;
  zonefile: string | null;
}

/**
 * Rows by their key (`$1`: an array of names, one lookup or a batch of them, see `KeyedBatchLoader`), and each one's
 * zonefile by its key.
 */
export const NAME_STATES = statement(
  `SELECT n.fqn, n.address, n.zonefile_hash, n.status, n.tx_id, n.expire_block, z.zonefile
   FROM bns_names_current n LEFT JOIN bns_zonefiles z ON z.zonefile_hash = n.zonefile_hash
   WHERE n.fqn = ANY($1::text[])`,
);

/** The current state of each of `fqns` that exists, by name. */
export async function getNameStates(db: NamesDb, fqns: string[]): Promise<Map<string, DbBnsNameState>> {
  const rows = await db.query<DbBnsNameState>(NAME_STATES, [fqns]);
  return new Map(rows.map((r) => [r.fqn, r]));
}

export async function getNameState(db: NamesDb, fqn: string): Promise<DbBnsNameState | undefined> {
  return (await getNameStates(db, [fqn])).get(fqn);
}

const NAMES_PAGE = statement(`SELECT fqn FROM bns_names_current ORDER BY fqn LIMIT ${NAMES_PAGE_SIZE} OFFSET $1`);

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
