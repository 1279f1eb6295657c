import type { Knex } from 'knex';

/**
 * `token_balances.balance_json` (issue 23, ADR 0028 addendum): each balance row's entry of the FT lists after its key,
 * `<asset>,"balance":"<digits>"}` (the asset by `to_json`, the balance digits only: what `JSON.stringify` writes), so a
 * page of v2 `/balances/ft` (`{"token":` before it) or of v3 `/balances/ft` (`{"asset_identifier":`) joins kept texts
 * instead of PostgreSQL writing each row's JSON per request (two thirds of a 100-entry page's PostgreSQL CPU: helper
 * h2's probe, `bench/accounts/README.md`).
 *
 * A stored generated column, as `blocks.v2_json` (migration 097, ADR 0036): PostgreSQL computes it whenever the row is
 * written, so it cannot disagree with the balance, whichever indexer statement sets the row (a block joining or
 * leaving the canonical chain, a reorg, an orphaned stream's anchored block). The function calls only built-ins whose
 * results depend on their arguments alone (`to_json` of text, `numeric` output), so it is declared immutable.
 *
 * The two indexes the lists read (046's largest-first, 092's asset order) are made again with the text included, so the
 * pages stay index-only.
 */
const FN = `CREATE FUNCTION bda_token_balance_json(asset_identifier text, balance numeric) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_json(asset_identifier)::text || ',"balance":"' || balance::text || '"}'
$$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(FN);
  await knex.raw(
    `ALTER TABLE token_balances ADD COLUMN balance_json text COLLATE "C"
       GENERATED ALWAYS AS (bda_token_balance_json(asset_identifier, balance)) STORED`,
  );
  await knex.raw(
    `COMMENT ON COLUMN token_balances.balance_json IS 'The FT lists'' entry after its key: <asset JSON>,"balance":"<digits>"} (generated)'`,
  );
  await knex.raw('DROP INDEX token_balances_by_balance');
  await knex.raw(
    `CREATE INDEX token_balances_by_balance ON token_balances (principal, kind, balance DESC, asset_identifier)
       INCLUDE (balance_json) WHERE balance > 0`,
  );
  await knex.raw(
    `COMMENT ON INDEX token_balances_by_balance IS 'Accounts: a principal''s positive token balances, largest first, with their list entries'`,
  );
  await knex.raw('DROP INDEX token_balances_by_asset');
  await knex.raw(
    `CREATE INDEX token_balances_by_asset ON token_balances (principal, kind, asset_identifier)
       INCLUDE (balance, total_sent, total_received, balance_json)`,
  );
  await knex.raw(
    `COMMENT ON INDEX token_balances_by_asset IS 'Accounts: a principal''s token balances in asset order with their totals and list entries (index-only lists)'`,
  );
  await knex.raw('ANALYZE token_balances');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX token_balances_by_asset');
  await knex.raw(
    'CREATE INDEX token_balances_by_asset ON token_balances (principal, kind, asset_identifier) INCLUDE (balance, total_sent, total_received)',
  );
  await knex.raw(
    `COMMENT ON INDEX token_balances_by_asset IS 'Accounts: a principal''s token balances in asset order with their totals (index-only lists)'`,
  );
  await knex.raw('DROP INDEX token_balances_by_balance');
  await knex.raw(
    'CREATE INDEX token_balances_by_balance ON token_balances (principal, kind, balance DESC, asset_identifier) WHERE balance > 0',
  );
  await knex.raw(
    `COMMENT ON INDEX token_balances_by_balance IS 'Accounts: a principal''s positive token balances, largest first'`,
  );
  await knex.raw('ALTER TABLE token_balances DROP COLUMN balance_json');
  await knex.raw('DROP FUNCTION bda_token_balance_json(text, numeric)');
}
