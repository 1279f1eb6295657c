import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * The current state of every BNS name and subdomain (ADR 0022, "Current state"): one row each, kept by the indexer in
 * the block's transaction from the history tables (`bns_names`, `bns_subdomains`), which stay the source of truth.
 * Whenever history rows of a name or subdomain are written or deleted (a block, a reorg, an attachment, the genesis
 * import) its row here is recomputed from them, so it is always what the newest history row says; a name's
 * `expire_block` is computed with its namespace's lease rules, and recomputed for the whole namespace when those change.
 *
 * `/v1/names/{name}` reads one row by key; `/v1/addresses/stacks/{address}` one index range per table on the owner.
 * Created filled from the history already stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bns_names_current', (t) => {
    t.comment('BNS names now: the newest bns_names row of each name, with its expiry');
    t.text('fqn').primary().comment('Fully qualified name: name.namespace');
    t.text('name').notNullable().comment('The name part (before the dot)');
    t.text('namespace_id').notNullable().comment('Its namespace');
    t.text('address').notNullable().comment('Owner (holder of its names NFT)');
    t.text('zonefile_hash').notNullable().comment('Zonefile hash (hash160, 40 hex, no 0x; empty when cleared)');
    t.integer('registered_at').nullable().comment('Height of its registration or last renewal (null if imported)');
    t.integer('imported_at').nullable().comment('Height of its import (null if registered)');
    t.boolean('revoked').notNullable().comment('Revoked (never resolves again)');
    t.text('status').notNullable().comment('The last operation: name-register, name-update, name-transfer, …');
    t.text('tx_id').notNullable().comment('Transaction of the last change (empty for the genesis import)');
    t.integer('block_height').notNullable().comment('Height of the last change (0 for the genesis import)');
    t.integer('tx_index').notNullable().comment('Position of that transaction in its block');
    t.integer('event_index').notNullable().comment('Event of that change (-1 when it is the transaction itself)');
    t.text('index_block_hash').notNullable().comment('Block of that change (empty for the genesis import)');
    t.bigInteger('expire_block')
      .notNullable()
      .comment('Last block of the lease (lease start + namespace lifetime); 0 when it never expires or the namespace is unknown');
  });
  await bytewiseText(knex, 'bns_names_current');
  await knex.raw(
    'CREATE INDEX bns_names_current_owner ON bns_names_current (address, fqn) INCLUDE (expire_block) WHERE NOT revoked',
  );
  await knex.raw(
    `COMMENT ON INDEX bns_names_current_owner IS 'The names an address holds that are not revoked, with their expiry'`,
  );

  await knex.schema.createTable('bns_subdomains_current', (t) => {
    t.comment('BNS subdomains now: the owner of the current record (highest seqn, first seen) of each subdomain');
    t.text('fqn').primary().comment('Fully qualified subdomain: label.name.namespace');
    t.text('owner').notNullable().comment('Owner address of its current record (Stacks form)');
  });
  await bytewiseText(knex, 'bns_subdomains_current');
  await knex.raw('CREATE INDEX bns_subdomains_current_owner ON bns_subdomains_current (owner, fqn)');
  await knex.raw(`COMMENT ON INDEX bns_subdomains_current_owner IS 'The subdomains an address owns now'`);

  // A subdomain's current record, totally ordered: among records of equal seqn the first on the chain, and among the
  // genesis import's (all at height 0) the lowest parent zonefile hash; the lookup and the current table use this order.
  await knex.raw('DROP INDEX bns_subdomains_latest');
  await knex.raw(
    'CREATE INDEX bns_subdomains_latest ON bns_subdomains (fqn, seqn DESC, block_height, tx_index, parent_zonefile_hash)',
  );

  await knex.raw(
    `INSERT INTO bns_names_current (fqn, name, namespace_id, address, zonefile_hash, registered_at, imported_at, revoked, status,
                                    tx_id, block_height, tx_index, event_index, index_block_hash, expire_block)
     SELECT n.fqn, n.name, n.namespace_id, n.address, n.zonefile_hash, n.registered_at, n.imported_at, n.revoked, n.status,
            n.tx_id, n.block_height, n.tx_index, n.event_index, n.index_block_hash,
            CASE WHEN coalesce(ns.lifetime, 0) = 0 THEN 0
                 ELSE ns.lifetime + CASE WHEN n.registered_at IS NOT NULL THEN n.registered_at
                                         WHEN n.imported_at BETWEEN ns.revealed_at AND ns.launched_at THEN ns.launched_at
                                         ELSE 0 END END
     FROM (SELECT DISTINCT ON (fqn) * FROM bns_names ORDER BY fqn, block_height DESC, tx_index DESC, event_index DESC) n
     LEFT JOIN LATERAL (
       SELECT lifetime, revealed_at, launched_at FROM bns_namespaces WHERE namespace_id = n.namespace_id
       ORDER BY block_height DESC, tx_index DESC, event_index DESC LIMIT 1
     ) ns ON true`,
  );
  await knex.raw(
    `INSERT INTO bns_subdomains_current (fqn, owner)
     SELECT DISTINCT ON (fqn) fqn, owner FROM bns_subdomains
     ORDER BY fqn, seqn DESC, block_height, tx_index, parent_zonefile_hash`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bns_subdomains_current');
  await knex.schema.dropTable('bns_names_current');
  await knex.raw('DROP INDEX bns_subdomains_latest');
  await knex.raw('CREATE INDEX bns_subdomains_latest ON bns_subdomains (fqn, seqn DESC, block_height, tx_index)');
}
