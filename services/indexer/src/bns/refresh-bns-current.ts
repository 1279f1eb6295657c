import type { Knex } from 'knex';
import { ADDRESSES_HOLDING_NAMES_SQL, addressNamesStaleAtSql, TIP_HEIGHT_SQL, upsertAddressNamesSql } from '@bda/db';

/**
 * The current-state tables of BNS (`bns_names_current`, `bns_subdomains_current`, migration 075; ADR 0022): each row
 * is recomputed from the history tables whenever history rows of its name or subdomain are written or deleted, in the
 * same transaction. The history stays the source of truth; these rows are what its newest rows say, so the hot lookups
 * read one row (a name) or one index range (an address) instead of finding each entry's newest history row.
 */

/** What changed in the history: the names, subdomains and namespaces (whose lease rules changed) to recompute. */
interface BnsCurrentKeys {
  names?: Iterable<string>;
  subdomains?: Iterable<string>;
  /** Namespaces whose lease rules (lifetime, reveal, launch) changed: every name of theirs gets a new expiry. */
  namespaces?: Iterable<string>;
}

/**
 * A name's current row: its newest history row, and its lease's last block as the contract's `name-lease-started-at?`
 * gives the lease start: the registration or renewal height; for a name imported between its namespace's reveal and
 * launch, the launch; else 0. `expire_block` = start + lifetime, 0 when names never expire (or no namespace is known).
 */
const upsertNames = (where: string) => `
  INSERT INTO bns_names_current AS c (fqn, name, namespace_id, address, zonefile_hash, registered_at, imported_at, revoked,
                                      status, tx_id, block_height, tx_index, event_index, index_block_hash, expire_block)
  SELECT n.fqn, n.name, n.namespace_id, n.address, n.zonefile_hash, n.registered_at, n.imported_at, n.revoked, n.status,
         n.tx_id, n.block_height, n.tx_index, n.event_index, n.index_block_hash,
         CASE WHEN coalesce(ns.lifetime, 0) = 0 THEN 0
              ELSE ns.lifetime + CASE WHEN n.registered_at IS NOT NULL THEN n.registered_at
                                      WHEN n.imported_at BETWEEN ns.revealed_at AND ns.launched_at THEN ns.launched_at
                                      ELSE 0 END END
  FROM (SELECT DISTINCT ON (fqn) * FROM bns_names WHERE ${where}
        ORDER BY fqn, block_height DESC, tx_index DESC, event_index DESC) n
  LEFT JOIN LATERAL (
    SELECT lifetime, revealed_at, launched_at FROM bns_namespaces WHERE namespace_id = n.namespace_id
    ORDER BY block_height DESC, tx_index DESC, event_index DESC LIMIT 1
  ) ns ON true
  ON CONFLICT (fqn) DO UPDATE SET
    name = excluded.name, namespace_id = excluded.namespace_id, address = excluded.address,
    zonefile_hash = excluded.zonefile_hash, registered_at = excluded.registered_at, imported_at = excluded.imported_at,
    revoked = excluded.revoked, status = excluded.status, tx_id = excluded.tx_id, block_height = excluded.block_height,
    tx_index = excluded.tx_index, event_index = excluded.event_index, index_block_hash = excluded.index_block_hash,
    expire_block = excluded.expire_block
  WHERE (c.*) IS DISTINCT FROM (excluded.*)`;

/** A subdomain's current record: the highest `seqn`, the first on the chain among equal ones (the lookup's order). */
const upsertSubdomains = (where: string) => `
  INSERT INTO bns_subdomains_current AS c (fqn, owner)
  SELECT DISTINCT ON (fqn) fqn, owner FROM bns_subdomains WHERE ${where}
  ORDER BY fqn, seqn DESC, block_height, tx_index, parent_zonefile_hash
  ON CONFLICT (fqn) DO UPDATE SET owner = excluded.owner WHERE c.owner IS DISTINCT FROM excluded.owner`;

const distinct = (keys: Iterable<string> | undefined) => [...new Set(keys ?? [])];

/**
 * The addresses whose kept answer (`bns_address_names`, migration 094) a change of `keys` touches: the owners of the
 * names and subdomains (before the change when run before it, after when run after) and of every name of the
 * namespaces; as a SQL relation over `?` bindings, with those bindings.
 */
function ownersOf(names: string[], subdomains: string[], namespaces: string[]): { sql: string; bindings: string[][] } {
  return {
    sql: `SELECT address FROM bns_names_current WHERE fqn = ANY(?::text[])
          UNION ALL SELECT owner FROM bns_subdomains_current WHERE fqn = ANY(?::text[])
          UNION ALL SELECT address FROM bns_names_current WHERE namespace_id = ANY(?::text[])`,
    bindings: [names, subdomains, namespaces],
  };
}

/**
 * Recomputes the current rows of `keys` from the history (a key left without history loses its row), and the kept
 * address answers of their owners before and after.
 */
export async function refreshBnsCurrent(db: Knex | Knex.Transaction, keys: BnsCurrentKeys): Promise<void> {
  const names = distinct(keys.names);
  const subdomains = distinct(keys.subdomains);
  const namespaces = distinct(keys.namespaces);
  if (names.length + subdomains.length + namespaces.length === 0) return;
  const owners = ownersOf(names, subdomains, namespaces);
  const { rows: before } = await db.raw<{ rows: Array<{ address: string }> }>(owners.sql, owners.bindings);
  if (names.length > 0) {
    await db.raw(
      `DELETE FROM bns_names_current c WHERE c.fqn = ANY(?::text[])
         AND NOT EXISTS (SELECT 1 FROM bns_names n WHERE n.fqn = c.fqn)`,
      [names],
    );
    await db.raw(upsertNames('fqn = ANY(?::text[])'), [names]);
  }
  if (namespaces.length > 0) await db.raw(upsertNames('namespace_id = ANY(?::text[])'), [namespaces]);
  if (subdomains.length > 0) {
    await db.raw(
      `DELETE FROM bns_subdomains_current c WHERE c.fqn = ANY(?::text[])
         AND NOT EXISTS (SELECT 1 FROM bns_subdomains s WHERE s.fqn = c.fqn)`,
      [subdomains],
    );
    await db.raw(upsertSubdomains('fqn = ANY(?::text[])'), [subdomains]);
  }
  await db.raw(upsertAddressNamesSql(`SELECT unnest(?::text[]) AS address UNION ALL ${owners.sql}`, TIP_HEIGHT_SQL), [
    before.map((r) => r.address),
    ...owners.bindings,
  ]);
}

/**
 * The kept address answers that no longer hold at the tip now in `chain_tip` (it passed an expiry, or a reorg lowered
 * it under one), recomputed: run whenever the tip moves other than by `addressNamesAtHeight` in a block's batch.
 */
export async function refreshAddressNamesAtTip(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(upsertAddressNamesSql(addressNamesStaleAtSql(TIP_HEIGHT_SQL), TIP_HEIGHT_SQL));
}

/**
 * The same for a block that becomes the tip at `height`, as one statement with `$1` for the height, to be sent in the
 * block's batch of writes (it sees the naming tables as they were before the block; the block's own naming changes
 * recompute their owners after).
 */
export const ADDRESS_NAMES_AT_HEIGHT_SQL = upsertAddressNamesSql(addressNamesStaleAtSql('$1::bigint'), '$1::bigint');

/** Recomputes every current row from the history (a database filled other than by the indexer: the benchmark's). */
export async function rebuildBnsCurrent(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw('TRUNCATE bns_names_current, bns_subdomains_current, bns_address_names');
  await db.raw(upsertNames('true'));
  await db.raw(upsertSubdomains('true'));
  await db.raw(upsertAddressNamesSql(ADDRESSES_HOLDING_NAMES_SQL, TIP_HEIGHT_SQL));
}

/** The lease rules of each namespace's newest row, as one comparable text. */
async function leaseRules(db: Knex | Knex.Transaction, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await db.raw<{ rows: Array<{ namespace_id: string; rules: string }> }>(
    `SELECT DISTINCT ON (namespace_id) namespace_id, concat_ws('|', lifetime, revealed_at, coalesce(launched_at::text, '-')) AS rules
     FROM bns_namespaces WHERE namespace_id = ANY(?::text[])
     ORDER BY namespace_id, block_height DESC, tx_index DESC, event_index DESC`,
    [ids],
  );
  return new Map(rows.map((r) => [r.namespace_id, r.rules]));
}

/**
 * Runs `write` (which adds or deletes rows of the namespaces `ids`) and returns the namespaces whose lease rules it
 * changed: a namespace's `ready` (its launch) or its undo. A price-function update changes none.
 */
export async function namespacesWithNewLeaseRules(
  db: Knex | Knex.Transaction,
  ids: readonly string[],
  write: () => Promise<void>,
): Promise<string[]> {
  const list = distinct(ids);
  if (list.length === 0) {
    await write();
    return [];
  }
  const before = await leaseRules(db, list);
  await write();
  const after = await leaseRules(db, list);
  return list.filter((id) => before.get(id) !== after.get(id));
}
