import type { Knex } from 'knex';
import type { DbBnsNamespace } from '@bda/db';
import { query, statement } from '../../datastore/read-statement';
import { NAMES_PAGE_SIZE } from '../routes/bns-params';

const NAMESPACES = statement(`SELECT DISTINCT namespace_id FROM bns_namespaces ORDER BY namespace_id`);

/** Every namespace that is ready (or imported at genesis), in name order. */
export async function listNamespaces(db: Knex): Promise<string[]> {
  return (await query<{ namespace_id: string }>(db, NAMESPACES, [])).map((r) => r.namespace_id);
}

const NAMESPACE_NAMES = statement(
  `SELECT EXISTS (SELECT 1 FROM bns_namespaces WHERE namespace_id = $1) AS known,
          coalesce((SELECT array_agg(fqn ORDER BY fqn) FROM (
             SELECT DISTINCT fqn FROM bns_names WHERE namespace_id = $1 ORDER BY fqn LIMIT ${NAMES_PAGE_SIZE} OFFSET $2
           ) page), '{}') AS names`,
);

/** A page of a namespace's names; `known` false when there is no such namespace. */
export async function listNamespaceNames(
  db: Knex,
  namespace: string,
  offset: number,
): Promise<{ known: boolean; names: string[] }> {
  const [row] = await query<{ known: boolean; names: string[] }>(db, NAMESPACE_NAMES, [namespace, offset]);
  return row ?? { known: false, names: [] };
}

const NAMESPACE = statement(
  `SELECT * FROM bns_namespaces WHERE namespace_id = $1 ORDER BY block_height DESC, tx_index DESC, event_index DESC LIMIT 1`,
);

/** A namespace's current state (its price function among it). */
export async function getNamespace(db: Knex, namespace: string): Promise<DbBnsNamespace | undefined> {
  const [row] = await query<DbBnsNamespace>(db, NAMESPACE, [namespace]);
  return row;
}
