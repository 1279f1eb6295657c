import type { Knex } from 'knex';

/**
 * The first page of each principal's two FT lists kept beside its v1 maps (`token_balance_maps`, migration 099; issue
 * 23, ADR 0047): the `results` of v2 `/extended/v2/addresses/{p}/balances/ft` (asset order) and of v3
 * `/extended/v3/principals/{p}/balances/ft` (positive balances, largest first) at the default page size, 100, as the
 * JSON text those statements join from the rows' kept entries (`balance_json`, migration 104), and the v3 page's
 * cursors. A first page of different principals cost PostgreSQL two to four times a v1 map's one-row read: reading
 * 100 index entries and joining their texts per request. The api reads the kept page when a request asks that page
 * (no offset or cursor, limit 100); every other page is still read from the indexes.
 *
 * Written with the maps, by the same indexer statement, in the block's transaction, for the principals whose
 * `token_balances` rows a batch changed (`services/indexer/src/accounts/token-balances.ts`), so a reorg and an
 * orphaned stream's anchored block are followed the way the maps are. The texts are built here as that statement
 * builds them (`ftFirstPagesSql`); 100 is the default page size of both lists (`KEPT_FT_PAGE_LIMIT`: changing it
 * needs a migration that writes every kept page again). Stored uncompressed, as the maps.
 */
export const KEPT_FT_PAGE_LIMIT = 100;

/** The principal's FT rows (`principal` an expression of the outer query) in one list's order, from `limit` on. */
const ftRows = (principal: string, order: 'asset' | 'balance', limit: string) =>
  order === 'asset'
    ? `FROM token_balances b WHERE b.principal = ${principal} AND b.kind = 'ft' ORDER BY b.asset_identifier ${limit}`
    : `FROM token_balances b WHERE b.principal = ${principal} AND b.kind = 'ft' AND b.balance > 0
       ORDER BY b.balance DESC, b.asset_identifier ${limit}`;

/**
 * The kept first pages of the principal `principal` (an expression of the outer query) as the four columns of
 * `token_balance_maps`, each a scalar subquery: the texts the api's range statements join for the same page
 * (`'[' || string_agg('{"token":' || balance_json, ',') || ']'`, `'[]'` when empty), and the v3 cursors
 * (`<balance>:<asset>`). Shared by this migration's backfill and the indexer's refresh of the maps.
 */
export function ftFirstPagesSql(principal: string): string {
  const page = `LIMIT ${KEPT_FT_PAGE_LIMIT}`;
  return `(SELECT coalesce('[' || string_agg('{"token":' || r.balance_json, ',' ORDER BY r.asset_identifier) || ']', '[]')
           FROM (SELECT b.asset_identifier, b.balance_json ${ftRows(principal, 'asset', page)}) r) AS ft_first_by_asset,
          (SELECT coalesce('[' || string_agg('{"asset_identifier":' || r.balance_json, ',' ORDER BY r.balance DESC, r.asset_identifier)
                    || ']', '[]')
           FROM (SELECT b.asset_identifier, b.balance, b.balance_json ${ftRows(principal, 'balance', page)}) r) AS ft_first_by_balance,
          (SELECT b.balance::text || ':' || b.asset_identifier ${ftRows(principal, 'balance', 'LIMIT 1')}) AS ft_first_current,
          (SELECT b.balance::text || ':' || b.asset_identifier
           ${ftRows(principal, 'balance', `OFFSET ${KEPT_FT_PAGE_LIMIT} LIMIT 1`)}) AS ft_first_next`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE token_balance_maps
    ADD COLUMN ft_first_by_asset text COLLATE "C",
    ADD COLUMN ft_first_by_balance text COLLATE "C",
    ADD COLUMN ft_first_current text COLLATE "C",
    ADD COLUMN ft_first_next text COLLATE "C"`);
  await knex.raw(
    `COMMENT ON COLUMN token_balance_maps.ft_first_by_asset IS 'v2 /balances/ft results of the first 100 FT balances in asset order: [{"token":…,"balance":"…"},…]'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN token_balance_maps.ft_first_by_balance IS 'v3 /balances/ft results of the first 100 positive FT balances, largest first: [{"asset_identifier":…,"balance":"…"},…]'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN token_balance_maps.ft_first_current IS 'v3 /balances/ft first page: its first row as <balance>:<asset>, null when none'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN token_balance_maps.ft_first_next IS 'v3 /balances/ft first page: the row after it (the 101st) as <balance>:<asset>, null when none'`,
  );
  await knex.raw(
    'ALTER TABLE token_balance_maps ALTER COLUMN ft_first_by_asset SET STORAGE EXTERNAL, ALTER COLUMN ft_first_by_balance SET STORAGE EXTERNAL',
  );
  await knex.raw(
    `UPDATE token_balance_maps t SET ft_first_by_asset = f.ft_first_by_asset, ft_first_by_balance = f.ft_first_by_balance,
       ft_first_current = f.ft_first_current, ft_first_next = f.ft_first_next
     FROM token_balance_maps m CROSS JOIN LATERAL (SELECT ${ftFirstPagesSql('m.principal')}) f
     WHERE t.principal = m.principal`,
  );
  await knex.raw(
    'ALTER TABLE token_balance_maps ALTER COLUMN ft_first_by_asset SET NOT NULL, ALTER COLUMN ft_first_by_balance SET NOT NULL',
  );
  await knex.raw('ANALYZE token_balance_maps');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE token_balance_maps
    DROP COLUMN ft_first_by_asset, DROP COLUMN ft_first_by_balance, DROP COLUMN ft_first_current, DROP COLUMN ft_first_next`);
}
