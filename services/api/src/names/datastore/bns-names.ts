import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';
import type { NamesDb } from './names-db';
import { NAMES_PAGE_SIZE } from '../routes/bns-params';

/**
 * What `/v1/names/{name}` shows of a name's current state (`bns_names_current`, kept by the indexer from the history:
 * migration 075, its expiry computed there from the namespace's lease rules), and its zonefile when it has arrived.
 */
export interface DbBnsNameState {
  address: string;
  zonefile_hash: string;
  status: string;
  tx_id: string;
  /** Last block of the lease (int8 as text); '0' when it never expires. */
  expire_block: string;
  zonefile: string | null;
}

/** One row by its key, and the zonefile by its key. */
export const NAME_STATE = statement(
  `SELECT n.address, n.zonefile_hash, n.status, n.tx_id, n.expire_block, z.zonefile
   FROM bns_names_current n LEFT JOIN bns_zonefiles z ON z.zonefile_hash = n.zonefile_hash
   WHERE n.fqn = $1`,
);

export async function getNameState(db: NamesDb, fqn: string): Promise<DbBnsNameState | undefined> {
  const [row] = await db.query<DbBnsNameState>(NAME_STATE, [fqn]);
  return row;
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
