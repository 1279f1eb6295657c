import type { Knex } from 'knex';
import { keepPrincipalTxJson } from '../tx-json/principal-tx-json';

/**
 * `principal_tx_json` (issue 23, ADR 0039): the per-principal part of each (principal, canonical transaction) pair of
 * an address's histories as JSON text — the v2 `/addresses/{a}/transactions` fields after `tx` (`v2_tail`), the v1
 * `/transactions_with_transfers` ones (`transfers_tail`) and the whole v3 `/principals/{p}/transactions` item
 * (`v3_json`) — so that a page is an index range of keys joined by primary key to short texts the api splices
 * unparsed (with the transaction's `tx_list_json` text for v1/v2), instead of each row's events read and counted per
 * request and, for v3, its `txs` row and block rows rendered.
 *
 * One row per pair of `principal_txs` or `principal_transfer_txs` (migrations 070, 076): written and deleted with them
 * when a block joins or leaves the canonical chain, rendered by the one mapper (`libs/db/src/tx-json/
 * principal-tx-json.ts`) from the transaction's row, its committed events and its `principal_txs` row, all fixed while
 * the block is canonical. `up` renders the pairs already indexed with the same function, `BATCH_BLOCKS` blocks a
 * statement.
 */

const BATCH_BLOCKS = 20;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE principal_tx_json (
    principal text COLLATE "C" NOT NULL,
    tx_id text COLLATE "C" NOT NULL,
    index_block_hash text COLLATE "C" NOT NULL,
    v2_tail text COLLATE "C" NOT NULL,
    transfers_tail text COLLATE "C" NOT NULL,
    v3_json text COLLATE "C",
    PRIMARY KEY (principal, tx_id, index_block_hash)
  )`);
  await knex.raw('CREATE INDEX principal_tx_json_block ON principal_tx_json (index_block_hash)');
  await knex.raw(
    `COMMENT ON TABLE principal_tx_json IS 'Per-principal parts of the address histories'' items, JSON text (ADR 0039)'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN principal_tx_json.v2_tail IS 'Members after "tx" of a /v2/addresses/{a}/transactions item, no braces'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN principal_tx_json.transfers_tail IS 'Members after "tx" of a /transactions_with_transfers item, no braces'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN principal_tx_json.v3_json IS 'The /v3/principals/{p}/transactions item; null without a principal_txs row'`,
  );
  let after = '';
  for (;;) {
    const { rows } = (await knex.raw(
      'SELECT index_block_hash FROM blocks WHERE canonical AND index_block_hash > ? ORDER BY index_block_hash LIMIT ?',
      [after, BATCH_BLOCKS],
    )) as { rows: Array<{ index_block_hash: string }> };
    if (rows.length === 0) break;
    await keepPrincipalTxJson(
      knex,
      rows.map((r) => r.index_block_hash),
    );
    after = rows[rows.length - 1]!.index_block_hash;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE principal_tx_json');
}
