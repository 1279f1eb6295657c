import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * BNS names (ADR 0022): one row per change of a name on the canonical chain — a print of the BNS contract
 * (`name-register`, `name-update`, `name-transfer`, `name-renewal`, `name-revoke`, `name-import`), a mint or transfer of
 * its `names` NFT, a renewal without zonefile (which prints nothing) — or from the genesis import. Each row is the
 * whole state after the change; the current state is the newest row. Rows of a block leaving the canonical chain are
 * deleted with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bns_names', (t) => {
    t.comment('BNS name states, one row per canonical change; the newest row of a name is current');
    t.text('fqn').notNullable().comment('Fully qualified name: name.namespace');
    t.text('name').notNullable().comment('The name part (before the dot)');
    t.text('namespace_id').notNullable().comment('Its namespace');
    t.text('address').notNullable().comment('Owner (holder of its names NFT) after the change');
    t.text('zonefile_hash').notNullable().comment('Zonefile hash (hash160, 40 hex, no 0x; empty when cleared)');
    t.integer('registered_at').nullable().comment('Height of its registration or last renewal (null if imported)');
    t.integer('imported_at').nullable().comment('Height of its import (null if registered)');
    t.boolean('sets_zonefile').notNullable().defaultTo(false).comment('This change set the zonefile hash (a print naming one)');
    t.boolean('revoked').notNullable().defaultTo(false).comment('Revoked (never resolves again)');
    t.text('status').notNullable().comment('The last operation: name-register, name-update, name-transfer, …');
    t.text('tx_id').notNullable().comment('Transaction of the change (empty for the genesis import)');
    t.integer('block_height').notNullable().comment('Height of its block (0 for the genesis import)');
    t.integer('tx_index').notNullable().comment('Position of the transaction in the block');
    t.integer('event_index').notNullable().comment('Event of the change (-1 when it is the transaction itself)');
    t.text('index_block_hash').notNullable().comment('Block of the change (empty for the genesis import)');
    t.primary(['fqn', 'index_block_hash', 'tx_id', 'event_index']);
  });
  await bytewiseText(knex, 'bns_names');
  await knex.raw('CREATE INDEX bns_names_latest ON bns_names (fqn, block_height DESC, tx_index DESC, event_index DESC)');
  await knex.raw('CREATE INDEX bns_names_address ON bns_names (address, fqn)');
  await knex.raw('CREATE INDEX bns_names_namespace ON bns_names (namespace_id, fqn)');
  await knex.raw('CREATE INDEX bns_names_zonefile ON bns_names (zonefile_hash)');
  await knex.raw('CREATE INDEX bns_names_block ON bns_names (index_block_hash)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bns_names');
}
