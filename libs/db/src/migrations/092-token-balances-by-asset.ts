import type { Knex } from 'knex';

/**
 * The token lists of a principal at the tip as index-only reads (`/extended/v2/addresses/{p}/balances/ft`, a page in
 * asset order at any offset; the v1 `/balances` maps, every kind in asset order): `token_balances_by_asset` holds the
 * primary key's order with the columns those lists show, so a page, its skipped offset and the maps read index
 * entries only, not a table row per asset (100 rows by key cost 300 buffers of a 309-buffer page before).
 *
 * Also rebuilds `token_balances_by_balance` (migration 046, the v3 FT list's largest-first order) once: every change
 * of a balance moves its entry, and a principal whose balances change block after block leaves the index mostly empty
 * pages (the bench principal's 1,000 kinds after 100,000 changes: 1,700 pages for 1,000 entries), which VACUUM reuses
 * but does not return. The planner prices an index range by the index's pages, so a principal holding most of the
 * table's rows (the bench's) got a scan of the whole table and a sort instead of the 6 pages the range reads.
 * Rebuilding changes no answer; the down migration has nothing to undo for it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX token_balances_by_asset ON token_balances (principal, kind, asset_identifier) INCLUDE (balance, total_sent, total_received)',
  );
  await knex.raw(
    `COMMENT ON INDEX token_balances_by_asset IS 'Accounts: a principal''s token balances in asset order with their totals (index-only lists)'`,
  );
  await knex.raw('REINDEX INDEX token_balances_by_balance');
  await knex.raw('ANALYZE token_balances');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX token_balances_by_asset');
}
