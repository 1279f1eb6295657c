import type { Knex } from 'knex';

/** Microblocks (Stacks 2.x) with their own canonical flags. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('microblocks', (t) => {
    t.comment('Microblocks from /new_microblocks and from the anchored blocks that confirm them');
    t.text('microblock_hash').notNullable().comment('Microblock hash');
    t.text('parent_index_block_hash').notNullable().comment('Anchored block the stream builds on');
    t.integer('microblock_sequence').notNullable().comment('Sequence in the stream');
    t.text('microblock_parent_hash').notNullable().comment('Previous microblock (or the anchor block hash)');
    t.text('block_hash').nullable().comment('Anchored block that confirmed it (null: unconfirmed)');
    t.text('index_block_hash').nullable().comment('index_block_hash of the confirming block');
    t.integer('tx_count').notNullable().comment('Transactions it carried');
    t.boolean('microblock_canonical').notNullable().comment('Confirmed by the next anchored block (not orphaned)');
    t.boolean('canonical').notNullable().comment('Its parent and confirming blocks are canonical');
    t.primary(['microblock_hash', 'parent_index_block_hash']);
  });
  await knex.schema.createTable('microblock_txs', (t) => {
    t.comment('Transactions streamed in microblocks before an anchored block confirms them');
    t.text('tx_id').notNullable().comment('Transaction id');
    t.text('microblock_hash').notNullable().comment('Microblock that carried it');
    t.text('parent_index_block_hash').notNullable().comment('Anchored block the stream builds on');
    t.integer('microblock_sequence').notNullable().comment('Its sequence');
    t.integer('tx_index').notNullable().comment('Position in the stream');
    t.binary('raw_tx').notNullable().comment('Serialized transaction');
    t.text('status').notNullable().comment('Execution status');
    t.text('raw_result').notNullable().comment('Clarity result (hex)');
    t.jsonb('events').notNullable().comment('Its events as sent (applied when confirmed)');
    t.primary(['tx_id', 'microblock_hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('microblock_txs');
  await knex.schema.dropTable('microblocks');
}
