import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * FT balances and NFT counts by height (ADR 0024): one row per principal, asset and canonical block whose committed
 * token events touched them, holding the running totals after that block. An NFT counts 1 per value held. A balance at
 * any height is the newest row at or below it; rows of a block leaving the canonical chain are deleted with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('token_balance_changes', (t) => {
    t.comment('Running FT balance / NFT count of a principal per asset after each canonical block that changed it');
    t.text('principal').notNullable().comment('Standard or contract principal');
    t.text('asset_identifier').notNullable().comment('contract_id::asset_name');
    t.text('kind').notNullable().comment('ft (amounts in base units) or nft (counts of values)');
    t.integer('block_height').notNullable().comment('Height of the block that changed it');
    t.text('index_block_hash').notNullable().comment('That block (deleted with it when it leaves the canonical chain)');
    t.decimal('balance', 40, 0).notNullable().comment('Balance (FT) or values held (NFT) after the block');
    t.decimal('total_sent', 40, 0).notNullable().comment('Sent by transfers and burns up to the block');
    t.decimal('total_received', 40, 0).notNullable().comment('Received by transfers and mints up to the block');
    t.primary(['principal', 'kind', 'asset_identifier', 'block_height']);
  });
  await bytewiseText(knex, 'token_balance_changes');
  await knex.raw(`ALTER TABLE token_balance_changes ADD CONSTRAINT token_balance_changes_kind CHECK (kind IN ('ft', 'nft'))`);
  await knex.raw('CREATE INDEX token_balance_changes_block ON token_balance_changes (index_block_hash)');
  await knex.raw(
    `COMMENT ON INDEX token_balance_changes_block IS 'The rows of a block, deleted when it leaves the canonical chain'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('token_balance_changes');
}
