import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * NFT ownership (ADR 0024): one row per committed NFT mint, transfer or burn of a successful transaction in a
 * canonical block, with the owner it leaves (null after a burn). The owner of (asset, value) at the tip or at any
 * height is its newest row at or below it. Rows of a block leaving the canonical chain are deleted with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('nft_owner_changes', (t) => {
    t.comment('Owner of an NFT value after each canonical mint, transfer or burn (ADR 0024)');
    t.text('asset_identifier').notNullable().comment('contract_id::asset_name');
    t.text('value_hex').notNullable().comment('The value (Clarity hex)');
    t.integer('block_height').notNullable().comment('Height of the change');
    t.integer('event_index').notNullable().comment('Position of the event in its block');
    t.text('index_block_hash').notNullable().comment('Block of the change');
    t.text('tx_id').notNullable().comment('Transaction of the change');
    t.text('owner').nullable().comment('Owner after the change; null after a burn');
    t.primary(['asset_identifier', 'value_hex', 'block_height', 'event_index']);
  });
  await bytewiseText(knex, 'nft_owner_changes');
  await knex.raw('CREATE INDEX nft_owner_changes_owner ON nft_owner_changes (owner, asset_identifier) WHERE owner IS NOT NULL');
  await knex.raw('CREATE INDEX nft_owner_changes_block ON nft_owner_changes (index_block_hash)');
  await knex.raw(`COMMENT ON INDEX nft_owner_changes_owner IS 'Candidate holdings of an owner (checked against newer rows)'`);
  await knex.raw(`COMMENT ON INDEX nft_owner_changes_block IS 'The rows of a block, deleted when it leaves the canonical chain'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('nft_owner_changes');
}
