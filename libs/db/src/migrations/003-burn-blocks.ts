import type { Knex } from 'knex';

/** Burnchain (Bitcoin) blocks as the Stacks node saw them, with PoX rewards. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('burn_blocks', (t) => {
    t.comment('Burnchain blocks from /new_burn_block; the newest at a height is canonical');
    t.text('burn_block_hash').primary().comment('Bitcoin block hash (0x hex)');
    t.integer('burn_block_height').notNullable().comment('Bitcoin height');
    t.text('parent_burn_block_hash').nullable().comment('Parent hash, when sent');
    t.text('consensus_hash').nullable().comment('Stacks consensus hash');
    t.decimal('burn_amount', 40, 0).notNullable().defaultTo(0).comment('Total burned, satoshis');
    t.boolean('canonical').notNullable().comment('Newest seen at its height');
  });
  await knex.raw('CREATE UNIQUE INDEX burn_blocks_canonical_height ON burn_blocks (burn_block_height) WHERE canonical');
  await knex.schema.createTable('burn_block_rewards', (t) => {
    t.comment('PoX reward recipients of a burn block');
    t.text('burn_block_hash').notNullable().comment('The burn block');
    t.integer('reward_index').notNullable().comment('Position in reward_recipients');
    t.integer('burn_block_height').notNullable().comment('Its height');
    t.text('recipient').notNullable().index().comment('Bitcoin address rewarded');
    t.decimal('amount', 40, 0).notNullable().comment('Satoshis');
    t.primary(['burn_block_hash', 'reward_index']);
  });
  await knex.schema.createTable('burn_block_slot_holders', (t) => {
    t.comment('PoX reward slot holders of a burn block');
    t.text('burn_block_hash').notNullable().comment('The burn block');
    t.integer('slot_index').notNullable().comment('Position in reward_slot_holders');
    t.integer('burn_block_height').notNullable().comment('Its height');
    t.text('address').notNullable().index().comment('Bitcoin address holding the slot');
    t.primary(['burn_block_hash', 'slot_index']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('burn_block_slot_holders');
  await knex.schema.dropTable('burn_block_rewards');
  await knex.schema.dropTable('burn_blocks');
}
