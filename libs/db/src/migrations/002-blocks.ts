import type { Knex } from 'knex';

/** Anchored Stacks blocks and the canonical tip. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('blocks', (t) => {
    t.comment('Every anchored Stacks block seen, canonical or not');
    t.text('index_block_hash').primary().comment('Unique identity of the block (0x hex)');
    t.text('block_hash').notNullable().index().comment('Block header hash (0x hex)');
    t.integer('block_height').notNullable().comment('Stacks height');
    t.text('parent_index_block_hash').notNullable().index().comment('index_block_hash of the parent');
    t.text('parent_block_hash').notNullable().comment('block_hash of the parent');
    t.text('parent_microblock_hash').notNullable().comment('Last confirmed microblock of the parent stream (0x00… when none)');
    t.integer('parent_microblock_sequence').notNullable().comment('Its sequence');
    t.text('burn_block_hash').notNullable().comment('Burnchain block this block was mined in');
    t.integer('burn_block_height').notNullable().comment('Its height');
    t.bigInteger('burn_block_time').notNullable().comment('Its time, Unix seconds');
    t.bigInteger('block_time').nullable().comment('Nakamoto block time, Unix seconds (null before Nakamoto)');
    t.text('miner_txid').nullable().comment('Bitcoin txid of the block commit');
    t.integer('tenure_height').nullable().comment('Nakamoto tenure height');
    t.integer('cycle_number').nullable().comment('PoX reward cycle (Nakamoto)');
    t.text('signer_bitvec').nullable().comment('Signer bit vector (hex)');
    t.jsonb('signer_signature').nullable().comment('Signer signatures (hex strings)');
    t.integer('tx_count').notNullable().comment('Number of transactions anchored in this block');
    t.bigInteger('execution_cost_read_count').notNullable().defaultTo(0).comment('Sum over its transactions');
    t.bigInteger('execution_cost_read_length').notNullable().defaultTo(0).comment('Sum over its transactions');
    t.bigInteger('execution_cost_runtime').notNullable().defaultTo(0).comment('Sum over its transactions');
    t.bigInteger('execution_cost_write_count').notNullable().defaultTo(0).comment('Sum over its transactions');
    t.bigInteger('execution_cost_write_length').notNullable().defaultTo(0).comment('Sum over its transactions');
    t.boolean('canonical').notNullable().comment('On the canonical chain');
  });
  await knex.raw('CREATE UNIQUE INDEX blocks_canonical_height ON blocks (block_height) WHERE canonical');
  await knex.raw('CREATE INDEX blocks_height ON blocks (block_height)');
  await knex.schema.createTable('chain_tip', (t) => {
    t.comment('The canonical tip; exactly one row');
    t.boolean('id').primary().defaultTo(true).comment('Always true: a singleton');
    t.integer('block_height').notNullable().comment('Tip height');
    t.text('block_hash').notNullable().comment('Tip block hash');
    t.text('index_block_hash').notNullable().comment('Tip index block hash');
    t.integer('burn_block_height').notNullable().comment('Burn height of the tip block');
    t.integer('block_count').notNullable().comment('Number of canonical blocks');
    t.text('microblock_hash').nullable().comment('Newest canonical microblock built on the tip');
    t.integer('microblock_sequence').nullable().comment('Its sequence');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_tip');
  await knex.schema.dropTable('blocks');
}
