import type { Knex } from 'knex';

/** Rune ledger: the Bitcoin blocks it has executed (the canonical chain only) with per-block activity counts. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rune_blocks', (t) => {
    t.comment(
      'Bitcoin blocks executed by the rune ledger, canonical only (a reorg deletes the replaced ones); per-block activity counts make the block activity endpoint positional',
    );
    t.integer('block_height').primary().comment('Block height');
    t.text('block_hash').notNullable().unique().comment('Block hash, 0x + 64 lower-case hex (unique: the hash → height index)');
    t.text('prev_hash').notNullable().comment('Parent block hash, 0x + 64 lower-case hex');
    t.bigInteger('block_time').notNullable().comment('Header time, Unix seconds');
    t.integer('tx_count').notNullable().comment('Transactions in the block, coinbase included');
    t.integer('activity_count').notNullable().comment('Rows of rune_activity in the block (positions 0 … activity_count - 1)');
    t.integer('etching_count').notNullable().comment('Rows with operation etching');
    t.integer('mint_count').notNullable().comment('Rows with operation mint');
    t.integer('burn_count').notNullable().comment('Rows with operation burn');
    t.integer('send_count').notNullable().comment('Rows with operation send');
    t.integer('receive_count').notNullable().comment('Rows with operation receive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rune_blocks');
}
