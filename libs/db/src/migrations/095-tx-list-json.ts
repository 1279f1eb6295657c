import type { Knex } from 'knex';
import { keepTxListJson } from '../tx-json/kept-tx-list-json';
import { bytewiseText } from './bns-bytewise-text';

/**
 * `tx_list_json` (issues 23 and 24, ADR 0035): the list form of each mined transaction — the reference API's
 * `Transaction` with `events: []`, exactly what the api renders for the row — kept as JSON text, so that a page of
 * transactions (the v1 list and its type filter, a block's transactions in v1 and v2, an address's history) is an
 * index range of keys joined by primary key to 20 short texts the api splices into its answer unparsed, instead of 20
 * `txs` rows with their two block rows and the called contracts' ABIs rendered per request.
 *
 * One row per `txs` row, canonical or not. The text is what the api shows while the row is canonical (`canonical:
 * true`; the lists serve canonical rows only). Everything else in it is fixed when the block is written but for
 * what comes from other rows, which the indexer renders again when it changes: the parent block's burn time (a
 * child block that arrived before its parent), the called contract's ABI (its first canonical deploy: the blocks a
 * reorg makes canonical are rendered again, and so are the canonical calls to a contract whose deploy arrives after
 * them). Microblock fields are fixed: a `txs` row is confirmed by its anchored block (`microblock_canonical` true).
 *
 * Rows up to 8 kB stay inline and uncompressed (`toast_tuple_target`): a page reads them without a TOAST probe or
 * decompression; larger ones (contract deploys with their source) are compressed and moved out of line as usual.
 * `up` renders the rows already indexed with the same code as the indexer, 200 blocks a statement.
 */

const BATCH_BLOCKS = 200;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tx_list_json', (t) => {
    t.comment('The list form of each mined transaction as the api renders it, JSON text (ADR 0035)');
    t.text('tx_id').notNullable().comment('txs.tx_id');
    t.text('index_block_hash').notNullable().comment('txs.index_block_hash: the block, canonical or not');
    t.text('json')
      .notNullable()
      .comment('The reference Transaction with events [] and canonical true, as JSON.stringify writes it');
    t.primary(['tx_id', 'index_block_hash']);
  });
  await bytewiseText(knex, 'tx_list_json');
  await knex.raw('ALTER TABLE tx_list_json SET (toast_tuple_target = 8160)');
  let after = '';
  for (;;) {
    const { rows } = (await knex.raw(
      'SELECT index_block_hash FROM blocks WHERE index_block_hash > ? ORDER BY index_block_hash LIMIT ?',
      [after, BATCH_BLOCKS],
    )) as { rows: Array<{ index_block_hash: string }> };
    if (rows.length === 0) break;
    await keepTxListJson(
      knex,
      rows.map((r) => r.index_block_hash),
    );
    after = rows[rows.length - 1]!.index_block_hash;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('tx_list_json');
}
