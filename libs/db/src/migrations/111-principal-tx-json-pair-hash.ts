import type { Knex } from 'knex';

/**
 * A hash index on `principal_tx_json`'s pair `tx_id || principal` (issue 23, ADR 0046). Every page of an address's
 * v2, v3 and with-transfers histories reads its 20–50 kept per-principal texts by key, one probe each (the keys come
 * from the list's own index range). Through the primary key `(principal, tx_id, index_block_hash)` a probe is a
 * descent of four B-tree levels comparing a principal and a 66-character id, then the row: 5 buffers, 250 of the 372
 * of a v2 page of 50 (bench database). Through a hash of the pair it is the bucket page and the row (the metapage is
 * cached by the backend): 2 buffers. The id comes first and is always 66 characters (`0x` and 64 hex digits), so the
 * concatenation names one pair; a hash of `tx_id` alone would put every principal of a transaction in one bucket (a
 * transfer to many recipients: that many rows checked per probe). The probe still compares the three key columns on
 * the row (a transaction mined in two forks has a row per block). 16 MB for 300,000 rows; one more index entry per
 * pair for the indexer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS principal_tx_json_pair_hash ON principal_tx_json USING hash ((tx_id || principal))');
  await knex.raw(
    `COMMENT ON INDEX principal_tx_json_pair_hash IS 'A page''s probe of one (principal, transaction) pair: 2 buffers (ADR 0046)'`,
  );
  // The planner knows an expression's values only from an ANALYZE after its index exists. Without one it takes the
  // pair for 0.5 % of the table and keeps the primary key in the pages' generic plans (the bench database until its
  // next autovacuum analyze: 250 buffers a v2 page of 50 for the kept texts instead of 100). About a second there.
  await knex.raw('ANALYZE principal_tx_json');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS principal_tx_json_pair_hash');
}
