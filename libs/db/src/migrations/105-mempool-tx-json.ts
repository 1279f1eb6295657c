import type { Knex } from 'knex';
import { keepMempoolTxJson } from '../tx-json/mempool-tx-json';
import { bytewiseText } from './bns-bytewise-text';

/**
 * `mempool_tx_json` (issue 24, ADR 0041): the list form of each pending transaction — the reference API's
 * `MempoolTransaction`, exactly what the api renders for the row while it is pending — kept as JSON text, so that a
 * page of `/extended/v1/tx/mempool` (every order and filter) and v1 `/address/{p}/mempool` is an index range of keys
 * joined by primary key to short texts the api splices into its answer unparsed, instead of the rows and the called
 * contracts' ABIs rendered per request.
 *
 * One row per mempool transaction that was pending when its text was written (a row that leaves `pending` keeps its
 * last text, unused: every statement that makes a row pending again is followed by its rendering). The text is fixed
 * while the row is pending but for the called contract's ABI (its first canonical deploy), which the indexer renders
 * again when a block deploying the contract is written, joins or leaves the canonical chain.
 *
 * Rows up to 8 kB stay inline and uncompressed (`toast_tuple_target`), as `tx_list_json` (095). `up` renders the
 * pending rows already stored with the same code as the indexer, 500 a statement.
 */

const BATCH = 500;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mempool_tx_json', (t) => {
    t.comment('The list form of each pending mempool transaction as the api renders it, JSON text (ADR 0041)');
    t.text('tx_id').primary().comment('mempool_txs.tx_id');
    t.text('json').notNullable().comment('The reference MempoolTransaction as pending, as JSON.stringify writes it');
  });
  await bytewiseText(knex, 'mempool_tx_json');
  await knex.raw('ALTER TABLE mempool_tx_json SET (toast_tuple_target = 8160)');
  let after = '';
  for (;;) {
    const { rows } = (await knex.raw(
      "SELECT tx_id FROM mempool_txs WHERE status = 'pending' AND tx_id > ? ORDER BY tx_id LIMIT ?",
      [after, BATCH],
    )) as { rows: Array<{ tx_id: string }> };
    if (rows.length === 0) break;
    // The v1 text only: `v3_json` is added by migration 110, which renders it then.
    await keepMempoolTxJson(
      knex,
      rows.map((r) => r.tx_id),
      { v1Only: true },
    );
    after = rows[rows.length - 1]!.tx_id;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mempool_tx_json');
}
