import type { Knex } from 'knex';

/**
 * Each principal's `fungible_tokens` and `non_fungible_tokens` maps of `/extended/v1/address/{p}/balances` at the tip,
 * kept as the answer's JSON text: the api reads one row instead of PostgreSQL writing the JSON of every kind the
 * principal ever held per request (1,000 on the bench principal: 2.5–3.2 ms of PostgreSQL's CPU an answer). The
 * indexer writes the row again for the principals whose `token_balances` rows a batch of blocks changed, in the
 * block's transaction, right after it sets those rows (a block joining or leaving the canonical chain, a reorg, an
 * orphaned microblock stream's anchored block: `services/indexer/src/accounts/token-balances.ts`). A principal has a
 * row while it has a `token_balances` row. `until_block` reads still write the maps from the change rows.
 *
 * The texts are what `JSON.stringify` writes for the maps in asset order (no spaces; the asset by `to_json`; amounts
 * digits only). Stored uncompressed (`STORAGE EXTERNAL`): the read copies the text out of its TOAST chunks without
 * decompressing it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE token_balance_maps (
    principal text COLLATE "C" PRIMARY KEY,
    ft text COLLATE "C" NOT NULL,
    nft text COLLATE "C" NOT NULL
  )`);
  await knex.raw(
    `COMMENT ON TABLE token_balance_maps IS 'Per principal with token_balances rows: its v1 /balances FT and NFT maps at the tip as JSON text (kept by the indexer)'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN token_balance_maps.ft IS 'fungible_tokens: {"<asset>":{"balance":…,"total_sent":…,"total_received":…},…}'`,
  );
  await knex.raw(
    `COMMENT ON COLUMN token_balance_maps.nft IS 'non_fungible_tokens: {"<asset>":{"count":…,"total_sent":…,"total_received":…},…}'`,
  );
  await knex.raw('ALTER TABLE token_balance_maps ALTER COLUMN ft SET STORAGE EXTERNAL, ALTER COLUMN nft SET STORAGE EXTERNAL');
  await knex.raw(
    `INSERT INTO token_balance_maps (principal, ft, nft)
     SELECT principal,
            coalesce('{' || string_agg(${entry('balance')}, ',' ORDER BY asset_identifier) FILTER (WHERE kind = 'ft') || '}', '{}'),
            coalesce('{' || string_agg(${entry('count')}, ',' ORDER BY asset_identifier) FILTER (WHERE kind = 'nft') || '}', '{}')
     FROM token_balances GROUP BY principal`,
  );
  // Statistics now: the api's generic plans are made from them (an unanalyzed table is priced as 650 rows).
  await knex.raw('ANALYZE token_balance_maps');
}

/** One entry of a map: `"<asset>":{"<amount>":"…","total_sent":"…","total_received":"…"}`. */
function entry(amount: 'balance' | 'count'): string {
  return `to_json(asset_identifier)::text || ':{"${amount}":"' || balance::text || '","total_sent":"' ||
    total_sent::text || '","total_received":"' || total_received::text || '"}'`;
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE token_balance_maps');
}
