import type { Knex } from 'knex';
import { keepTxSummaryJson } from '../tx-json/tx-summary-json';

/**
 * `tx_summary_json` (issue 24, ADR 0042): each mined transaction's v3 `TransactionSummary` as JSON text, keyed by its
 * block and its place in it, so that `/extended/v3/blocks/{height_or_hash}/transactions` reads one block's range of
 * short texts (`tx_summary_json_pkey`, backwards) instead of its `txs` rows that the api parsed, mapped and wrote
 * again. One row per `txs` row, canonical or not (see `libs/db/src/tx-json/tx-summary-json.ts`: the text depends on
 * the row's own columns only, and those never change but for `canonical`). `up` renders the rows already indexed
 * with the indexer's function, `BATCH_BLOCKS` blocks a statement.
 */

const BATCH_BLOCKS = 200;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE tx_summary_json (
    index_block_hash text COLLATE "C" NOT NULL,
    seq int NOT NULL,
    tx_index int NOT NULL,
    tx_id text COLLATE "C" NOT NULL,
    summary_json text COLLATE "C" NOT NULL,
    PRIMARY KEY (index_block_hash, seq, tx_index, tx_id)
  )`);
  await knex.raw(
    `COMMENT ON TABLE tx_summary_json IS 'Each mined transaction''s v3 TransactionSummary JSON text, by block and place (ADR 0042)'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN tx_summary_json.seq IS 'The microblock sequence, 2147483647 for an anchored transaction (the v3 cursor''s)'`,
  );
  let after = '';
  for (;;) {
    const { rows } = (await knex.raw(
      'SELECT index_block_hash FROM blocks WHERE index_block_hash > ? ORDER BY index_block_hash LIMIT ?',
      [after, BATCH_BLOCKS],
    )) as { rows: Array<{ index_block_hash: string }> };
    if (rows.length === 0) break;
    await keepTxSummaryJson(
      knex,
      rows.map((r) => r.index_block_hash),
    );
    after = rows[rows.length - 1]!.index_block_hash;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE tx_summary_json');
}
