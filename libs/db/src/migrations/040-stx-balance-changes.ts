import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * STX balances by height (ADR 0024): one row per principal and canonical block whose committed STX events, fees or
 * matured miner rewards touched that principal, holding the running totals after that block. A balance at the tip or
 * at any height is the principal's newest row at or below that height (an index read, no sum at request time). Only
 * canonical blocks have rows: the rows of a block leaving the canonical chain are deleted with it, and the rows of the
 * blocks joining it are computed again from their events.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stx_balance_changes', (t) => {
    t.comment('Running STX totals of a principal after each canonical block that changed them (ADR 0024)');
    t.text('principal').notNullable().comment('Standard or contract principal');
    t.integer('block_height').notNullable().comment('Height of the block that changed them');
    t.text('index_block_hash').notNullable().comment('That block (deleted with it when it leaves the canonical chain)');
    t.decimal('balance', 40, 0).notNullable().comment('micro-STX after the block: received - sent - fees + miner rewards');
    t.decimal('total_sent', 40, 0).notNullable().comment('micro-STX sent by transfers and burns up to the block');
    t.decimal('total_received', 40, 0).notNullable().comment('micro-STX received by transfers and mints up to the block');
    t.decimal('total_fees_sent', 40, 0).notNullable().comment('micro-STX paid in fees (as sender or sponsor) up to the block');
    t.decimal('total_miner_rewards_received', 40, 0)
      .notNullable()
      .comment('micro-STX of matured miner rewards paid up to the block');
    t.primary(['principal', 'block_height']);
  });
  await bytewiseText(knex, 'stx_balance_changes');
  await knex.raw('CREATE INDEX stx_balance_changes_block ON stx_balance_changes (index_block_hash)');
  await knex.raw(
    `COMMENT ON INDEX stx_balance_changes_block IS 'The rows of a block, deleted when it leaves the canonical chain'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('stx_balance_changes');
}
