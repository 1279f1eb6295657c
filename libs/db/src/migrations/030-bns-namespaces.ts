import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * BNS namespaces (ADR 0022): one row per change of a namespace on the canonical chain (its `namespace-ready` print, a
 * successful `namespace-update-function-price` call) or from the genesis import. The namespace's current state is
 * its newest row; rows of a block leaving the canonical chain are deleted with it, so the previous row is current
 * again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bns_namespaces', (t) => {
    t.comment('BNS namespace states, one row per canonical change; the newest row of a namespace is current');
    t.text('namespace_id').notNullable().comment('Namespace (the TLD, without the dot)');
    t.text('address').notNullable().comment('Its import principal (namespace-import)');
    t.integer('revealed_at').notNullable().comment('Block height of its reveal (0 for the genesis import)');
    t.integer('launched_at').nullable().comment('Block height of its ready (null while only revealed)');
    t.bigInteger('lifetime').notNullable().comment('Name lifetime in blocks (0: names never expire)');
    t.text('buckets').notNullable().comment('Price function: the 16 bucket exponents, ";"-separated');
    t.decimal('base', 40, 0).notNullable().comment('Price function base');
    t.decimal('coeff', 40, 0).notNullable().comment('Price function coefficient');
    t.decimal('nonalpha_discount', 40, 0).notNullable().comment('Price divisor for names with digits, - or _');
    t.decimal('no_vowel_discount', 40, 0).notNullable().comment('Price divisor for names without vowels');
    t.boolean('can_update_price_function').notNullable().defaultTo(true).comment('Whether its price function may change');
    t.text('status').notNullable().comment('ready, or the operation that wrote the row');
    t.text('tx_id').notNullable().comment('Transaction of the change (empty for the genesis import)');
    t.integer('block_height').notNullable().comment('Height of its block (0 for the genesis import)');
    t.integer('tx_index').notNullable().comment('Position of the transaction in the block');
    t.integer('event_index').notNullable().comment('Event of the change (-1 when it is the transaction itself)');
    t.text('index_block_hash').notNullable().comment('Block of the change (empty for the genesis import)');
    t.primary(['namespace_id', 'index_block_hash', 'tx_id', 'event_index']);
  });
  await bytewiseText(knex, 'bns_namespaces');
  await knex.raw(
    'CREATE INDEX bns_namespaces_latest ON bns_namespaces (namespace_id, block_height DESC, tx_index DESC, event_index DESC)',
  );
  await knex.raw('CREATE INDEX bns_namespaces_block ON bns_namespaces (index_block_hash)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bns_namespaces');
}
