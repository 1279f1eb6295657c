import type { Knex } from 'knex';

/** Matured miner rewards paid out in a block. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('miner_rewards', (t) => {
    t.comment('Matured miner rewards from /new_block');
    t.text('index_block_hash').notNullable().comment('Block that paid them');
    t.integer('reward_index').notNullable().comment('Position in matured_miner_rewards');
    t.integer('block_height').notNullable().comment('Its height');
    t.text('from_index_block_hash').notNullable().comment('Block that earned them (consensus hash + block hash)');
    t.text('recipient').notNullable().index().comment('Principal paid');
    t.text('miner_address').nullable().comment('Miner address, when sent');
    t.decimal('coinbase_amount', 40, 0).notNullable().comment('micro-STX');
    t.decimal('tx_fees_anchored', 40, 0).notNullable().comment('micro-STX');
    t.decimal('tx_fees_streamed_confirmed', 40, 0).notNullable().comment('micro-STX');
    t.decimal('tx_fees_streamed_produced', 40, 0).notNullable().comment('micro-STX');
    t.boolean('canonical').notNullable().comment('Its block is canonical');
    t.primary(['index_block_hash', 'reward_index']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('miner_rewards');
}
