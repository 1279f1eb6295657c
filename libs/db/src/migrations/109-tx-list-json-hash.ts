import type { Knex } from 'knex';

/**
 * A hash index on `tx_list_json.tx_id` (issue 24, ADR 0043). Every page of mined transactions reads its 20 kept texts
 * by key, one probe each (the keys come from another index: the chain's order, a block's, an address's). Through
 * the primary key `(tx_id, index_block_hash)` a probe is a descent of three B-tree levels comparing 66-character
 * texts, then the row: 4 buffers, 80 a page, and about a fifth of PostgreSQL's CPU on the page (perf on the backend,
 * bench database). Through a hash of `tx_id` it is the bucket page and the row (the index's metapage is cached by the
 * backend): 2 buffers, 40–43 a page; the probe still checks `index_block_hash` on the row (a transaction mined in two
 * forks has two rows, in one bucket). The planner picks it for the api's generic plans of `txPageText` and the
 * address history (`EXPLAIN`, bench database). 6.5 MB for 200,000 rows; one more index entry per kept text for the
 * indexer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS tx_list_json_tx_id_hash ON tx_list_json USING hash (tx_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tx_list_json_tx_id_hash');
}
