import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * Current FT balances and NFT counts (ADR 0024): a copy of each (principal, kind, asset)'s newest
 * `token_balance_changes` row, so that listing a principal's tokens at the tip, with their count, reads one index
 * range. A reorg sets each touched key again from its newest remaining row (or deletes it when none is left).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('token_balances', (t) => {
    t.comment('Newest token_balance_changes row of each principal, kind and asset: the balances at the canonical tip');
    t.text('principal').notNullable().comment('Standard or contract principal');
    t.text('kind').notNullable().comment('ft or nft');
    t.text('asset_identifier').notNullable().comment('contract_id::asset_name');
    t.integer('block_height').notNullable().comment('Height of the newest change');
    t.decimal('balance', 40, 0).notNullable().comment('Balance (FT) or values held (NFT) at the tip');
    t.decimal('total_sent', 40, 0).notNullable().comment('Sent by transfers and burns');
    t.decimal('total_received', 40, 0).notNullable().comment('Received by transfers and mints');
    t.primary(['principal', 'kind', 'asset_identifier']);
  });
  await bytewiseText(knex, 'token_balances');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('token_balances');
}
