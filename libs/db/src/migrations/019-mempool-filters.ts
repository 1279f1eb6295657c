import type { Knex } from 'knex';

/**
 * Indexes over pending mempool transactions for the list's filters and orders (`/extended/v1/tx/mempool`):
 * token-transfer recipient, contract deployed or called, fee and size. Partial: only pending rows, a set the node
 * bounds, so they stay small however long the mempool history grows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    "CREATE INDEX mempool_pending_recipient ON mempool_txs ((payload->>'recipient_address'), receipt_time DESC, tx_id) WHERE status = 'pending'",
  );
  await knex.raw(
    "CREATE INDEX mempool_pending_contract ON mempool_txs (contract_id, receipt_time DESC, tx_id) WHERE status = 'pending'",
  );
  await knex.raw(
    "CREATE INDEX mempool_pending_sender ON mempool_txs (sender_address, receipt_time DESC, tx_id) WHERE status = 'pending'",
  );
  await knex.raw("CREATE INDEX mempool_pending_fee ON mempool_txs (fee_rate, tx_id) WHERE status = 'pending'");
  await knex.raw("CREATE INDEX mempool_pending_size ON mempool_txs (octet_length(raw_tx), tx_id) WHERE status = 'pending'");
}

export async function down(knex: Knex): Promise<void> {
  for (const name of [
    'mempool_pending_size',
    'mempool_pending_fee',
    'mempool_pending_sender',
    'mempool_pending_contract',
    'mempool_pending_recipient',
  ]) {
    await knex.raw(`DROP INDEX ${name}`);
  }
}
