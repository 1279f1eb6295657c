import type { Knex } from 'knex';

/**
 * The v3 pending list's order as an index (issue 24, ADR 0041): `/extended/v3/mempool/transactions` pages the pending
 * set newest first by the receipt time's whole Unix second, then tx id, both descending. The second was computed
 * from the ISO text per request over every pending row (1,000 on the bench database: a sort of the whole set, 3–5 ms
 * of PostgreSQL a page). `bda_receipt_secs` is that second; the partial index of pending rows on it (read backward)
 * makes a page an index range.
 *
 * `bda_receipt_secs` is declared IMMUTABLE although the text→timestamptz cast is only STABLE (it reads the session's
 * TimeZone for a text without an offset): `receipt_time` is always written by `toISOString` (ending in `Z`, an
 * explicit offset), for which the cast does not depend on the session. Declared immutable it can key an index and is
 * not inlined into the cast (so the statements' expression matches the index's).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION bda_receipt_secs(receipt_time text) RETURNS int8
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT floor(extract(epoch FROM receipt_time::timestamptz))::int8 $$`);
  await knex.raw(
    "CREATE INDEX mempool_pending_receipt_secs ON mempool_txs (bda_receipt_secs(receipt_time), tx_id) WHERE status = 'pending'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX mempool_pending_receipt_secs');
  await knex.raw('DROP FUNCTION bda_receipt_secs(text)');
}
