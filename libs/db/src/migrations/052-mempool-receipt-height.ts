import type { Knex } from 'knex';

/**
 * The chain tip's height when a transaction entered the mempool: the reference API's `/extended/v1/tx/mempool/stats`
 * gives the transactions' ages in blocks (the tip's height now less this). Null for rows written before this column
 * existed (left out of the ages).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mempool_txs', (t) => {
    t.integer('receipt_block_height').nullable().comment('Canonical tip height when the node announced it (null: unknown)');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mempool_txs', (t) => {
    t.dropColumn('receipt_block_height');
  });
}
