import type { Knex } from 'knex';

/** Read model: each principal's canonical transaction history with a maintained count. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('address_txs', (t) => {
    t.comment('Canonical transactions touching a principal (sender, sponsor, recipient, contract, event party)');
    t.text('address').notNullable().comment('Principal');
    t.integer('block_height').notNullable().comment('Height of the including block');
    t.integer('microblock_sequence').notNullable().comment('Microblock sequence, 2147483647 for anchored txs');
    t.integer('tx_index').notNullable().comment('Position in the block');
    t.text('tx_id').notNullable().comment('Transaction');
    t.text('index_block_hash').notNullable().comment('Including block');
    t.primary(['address', 'block_height', 'microblock_sequence', 'tx_index']);
  });
  await knex.raw('CREATE INDEX address_txs_block ON address_txs (index_block_hash)');
  await knex.schema.createTable('address_tx_counts', (t) => {
    t.comment('Number of rows per principal in address_txs (the `total` of the history endpoint)');
    t.text('address').primary().comment('Principal');
    t.integer('tx_count').notNullable().comment('Canonical transactions touching it');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('address_tx_counts');
  await knex.schema.dropTable('address_txs');
}
