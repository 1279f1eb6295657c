import type { Knex } from 'knex';
import { keepMempoolTxJson } from '../tx-json/mempool-tx-json';

/**
 * The v3 mempool pages from kept texts (issue 24, ADR 0045): `/extended/v3/mempool/transactions` and
 * `/extended/v3/principals/{p}/mempool/transactions` read each pending transaction's v3 `MempoolTransactionSummary`
 * kept as JSON text beside its v1 list text (`mempool_tx_json.v3_json`), and a principal's page is the union of three
 * index ranges in the v3 order instead of the principal's whole pending set sorted per request.
 *
 * - `v3_json`: written with `json` by the indexer (`keepMempoolTxJson`, the same statements as ADR 0041). It depends on
 *   the row's own columns only. Null on rows that left `pending` before this migration (never read: the pages list
 *   pending rows only). `up` renders the pending rows already stored with the indexer's function, 500 a statement.
 * - The v3 order is the receipt time's Unix second descending, then tx id descending (`bda_receipt_secs`, migration
 *   106); the principal indexes of migration 019 are in the receipt time's order, whose ties within a second are not
 *   the v3 order's, so a range of them cut at a page's length could miss a row of the page. Three partial indexes of
 *   pending rows, one per way a principal is named (sender, token-transfer recipient, contract deployed or called),
 *   keyed as migration 106's, make each branch of a principal's page an index range from the cursor.
 */

const BATCH = 500;

const PRINCIPAL_INDEXES: Array<[string, string]> = [
  ['mempool_pending_sender_secs', 'sender_address'],
  ['mempool_pending_recipient_secs', "(payload->>'recipient_address')"],
  ['mempool_pending_contract_secs', 'contract_id'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE mempool_tx_json ADD COLUMN v3_json text COLLATE "C"');
  await knex.raw(
    `COMMENT ON COLUMN mempool_tx_json.v3_json IS 'The reference v3 MempoolTransactionSummary as pending, as JSON.stringify writes it (ADR 0045)'`,
  );
  let after = '';
  for (;;) {
    const { rows } = (await knex.raw(
      "SELECT tx_id FROM mempool_txs WHERE status = 'pending' AND tx_id > ? ORDER BY tx_id LIMIT ?",
      [after, BATCH],
    )) as { rows: Array<{ tx_id: string }> };
    if (rows.length === 0) break;
    await keepMempoolTxJson(
      knex,
      rows.map((r) => r.tx_id),
    );
    after = rows[rows.length - 1]!.tx_id;
  }
  for (const [name, key] of PRINCIPAL_INDEXES) {
    await knex.raw(
      `CREATE INDEX ${name} ON mempool_txs (${key}, bda_receipt_secs(receipt_time), tx_id) WHERE status = 'pending'`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of PRINCIPAL_INDEXES) await knex.raw(`DROP INDEX ${name}`);
  await knex.raw('ALTER TABLE mempool_tx_json DROP COLUMN v3_json');
}
