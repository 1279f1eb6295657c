import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * BNS subdomains (ADR 0022): one row per subdomain TXT record of a name's zonefile (`owner=`, `seqn=`, `parts=`,
 * `zf0…`), with the position of the name change that pointed to that zonefile; or from the genesis import. The current
 * state of a subdomain is its row with the highest `seqn` (the first seen among equal ones): a lower `seqn` never
 * overrides. Rows of a block leaving the canonical chain are deleted with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bns_subdomains', (t) => {
    t.comment('BNS subdomain records from zonefiles; the highest seqn of a subdomain is current');
    t.text('fqn').notNullable().comment('Fully qualified subdomain: label.name.namespace');
    t.text('name').notNullable().comment('Its parent name: name.namespace');
    t.text('namespace_id').notNullable().comment('The namespace');
    t.text('owner').notNullable().comment('Owner address (Stacks form)');
    t.bigInteger('seqn').notNullable().comment('Sequence number of the record');
    t.text('zonefile_hash').notNullable().comment('hash160 of its own zonefile (40 hex)');
    t.text('zonefile').notNullable().comment('Its own zonefile (decoded from zf0…)');
    t.text('parent_zonefile_hash').notNullable().comment('Hash of the parent zonefile that carried the record');
    t.integer('parent_zonefile_index').notNullable().comment('Position of the record in that zonefile');
    t.text('resolver').nullable().comment('Resolver URL from the parent zonefile (_resolver URI), if any');
    t.text('tx_id').notNullable().comment('Transaction of the parent name change (empty for the genesis import)');
    t.integer('block_height').notNullable().comment('Height of that change (0 for the genesis import)');
    t.integer('tx_index').notNullable().comment('Position of that transaction');
    t.text('index_block_hash').notNullable().comment('Block of that change (empty for the genesis import)');
    t.primary(['fqn', 'index_block_hash', 'tx_id', 'parent_zonefile_hash']);
  });
  await bytewiseText(knex, 'bns_subdomains');
  await knex.raw('CREATE INDEX bns_subdomains_latest ON bns_subdomains (fqn, seqn DESC, block_height, tx_index)');
  await knex.raw('CREATE INDEX bns_subdomains_name ON bns_subdomains (name, fqn)');
  await knex.raw('CREATE INDEX bns_subdomains_owner ON bns_subdomains (owner, fqn)');
  await knex.raw('CREATE INDEX bns_subdomains_block ON bns_subdomains (index_block_hash)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bns_subdomains');
}
