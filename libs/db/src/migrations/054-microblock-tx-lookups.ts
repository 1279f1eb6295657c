import type { Knex } from 'knex';

/**
 * The transactions a microblock streamed, by microblock: `/extended/v1/microblock/{hash}` lists those of a microblock no
 * anchored block has confirmed yet (the confirmed ones are read from the confirming block's `txs`). Index only.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX microblock_txs_microblock ON microblock_txs (microblock_hash, parent_index_block_hash)');
  await knex.raw(`COMMENT ON INDEX microblock_txs_microblock IS 'Transactions streamed in a microblock'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX microblock_txs_microblock');
}
