import type { Knex } from 'knex';

/** Tables of bookkeeping that legitimately differ between runs (positions move on every replay). */
const SKIP_TABLES = new Set(['consumer_positions', 'dead_letters', 'knex_migrations_indexer', 'knex_migrations_indexer_lock']);

/**
 * An md5 per table over every row (as text, sorted), so two databases can be compared exactly.
 * `excludeColumns` leaves out wall-clock columns when comparing systems fed at different times.
 */
export async function tableChecksums(db: Knex, excludeColumns: string[] = []): Promise<Record<string, string>> {
  const tables = (
    await db.raw<{ rows: Array<{ table_name: string }> }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  ).rows.map((r) => r.table_name);
  const out: Record<string, string> = {};
  for (const table of tables) {
    if (SKIP_TABLES.has(table)) continue;
    const cols = (
      await db.raw<{ rows: Array<{ column_name: string }> }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? ORDER BY ordinal_position`,
        [table],
      )
    ).rows
      .map((r) => r.column_name)
      .filter((c) => !excludeColumns.includes(`${table}.${c}`));
    const list = cols.map((c) => `"${c}"`).join(', ');
    const { rows } = await db.raw<{ rows: Array<{ n: string; sum: string | null }> }>(
      `SELECT count(*) AS n, md5(string_agg(r, E'\\n' ORDER BY r)) AS sum FROM (SELECT ROW(${list})::text AS r FROM "${table}") t`,
    );
    out[table] = `${rows[0]!.n}:${rows[0]!.sum ?? '-'}`;
  }
  return out;
}

/**
 * Wall-clock columns: the time the observer received an event, and the kept list texts of a pending transaction, which
 * show that time (`receipt_time`, ADR 0041 and 0045; the rest of them is rendered from the `mempool_txs` columns
 * compared).
 */
export const RECEIPT_TIME_COLUMNS = [
  'mempool_txs.receipt_time',
  'mempool_tx_json.json',
  'mempool_tx_json.v3_json',
  'parked_blocks.received_at',
];
