import type { Knex } from 'knex';

/** The mempool: pending, mined, dropped. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mempool_txs', (t) => {
    t.comment('Transactions the node reported in its mempool, with their lifecycle');
    t.text('tx_id').primary().comment('Transaction id');
    t.binary('raw_tx').notNullable().comment('Serialized transaction');
    t.text('type_id').notNullable().comment('Payload type');
    t.text('sender_address').notNullable().index().comment('Origin address');
    t.text('sponsor_address').nullable().comment('Sponsor');
    t.bigInteger('nonce').notNullable().comment('Origin nonce');
    t.decimal('fee_rate', 40, 0).notNullable().comment('Fee, micro-STX');
    t.jsonb('payload').notNullable().comment('Decoded payload');
    t.jsonb('post_conditions').notNullable().comment('Decoded post-conditions');
    t.text('post_condition_mode').notNullable().comment('allow | deny');
    t.text('anchor_mode').notNullable().comment('Anchor mode');
    t.text('contract_id').nullable().comment('Contract deployed or called');
    t.text('status').notNullable().comment('pending | mined | dropped_<reason>');
    t.text('replaced_by_tx_id').nullable().comment('Replacement tx (ReplaceByFee)');
    t.text('receipt_time').notNullable().comment('When the observer received it (envelope time, ISO)');
  });
  await knex.raw("CREATE INDEX mempool_pending ON mempool_txs (receipt_time DESC, tx_id) WHERE status = 'pending'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mempool_txs');
}
