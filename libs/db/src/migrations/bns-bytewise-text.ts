import type { Knex } from 'knex';

/**
 * Makes every text column of a new BNS table compare byte by byte (`COLLATE "C"`), as migration 021 does for the
 * others (ADR 0012): names, hashes and addresses are identifiers, and byte order is the same on every server.
 */
export async function bytewiseText(knex: Knex, table: string): Promise<void> {
  const { rows } = (await knex.raw(
    `SELECT a.attname AS "column"
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relname = ? AND a.attnum > 0 AND NOT a.attisdropped
        AND a.atttypid = 'text'::regtype
      ORDER BY a.attnum`,
    [table],
  )) as { rows: Array<{ column: string }> };
  if (rows.length === 0) return;
  await knex.raw(`ALTER TABLE "${table}" ${rows.map((r) => `ALTER COLUMN "${r.column}" TYPE text COLLATE "C"`).join(', ')}`);
}
