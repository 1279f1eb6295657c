import type { Knex } from 'knex';
import { createStatementTriggers, dropStatementTriggers } from './statement-triggers';

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
 *
 * And the NFT values held now (`/extended/v3/principals/{p}/balances/nft`): `nft_holdings`, the owner each value's
 * newest `nft_owner_changes` row leaves (no row after a burn), kept by the indexer in the block's transaction from the
 * keys a block joining or leaving the canonical chain touched; `nft_holding_counts`, how many values each principal
 * holds, kept by statement-level triggers on `nft_holdings` (as migration 091 keeps `token_balance_counts`). A page is
 * one range of `(owner, asset, value)` and its total one row, instead of an anti-join over every row that ever left
 * the principal an owner and a count of them per request.
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

  await knex.schema.createTable('nft_holdings', (t) => {
    t.comment(
      'Owner of each NFT value at the canonical tip: the owner its newest nft_owner_changes row leaves (none after a burn)',
    );
    t.specificType('asset_identifier', 'text COLLATE "C"').notNullable().comment('contract_id::asset_name');
    t.specificType('value_hex', 'text COLLATE "C"').notNullable().comment('The value (Clarity hex)');
    t.specificType('owner', 'text COLLATE "C"').notNullable().comment('Principal holding it');
    t.integer('block_height').notNullable().comment('Height of the change that left it there');
    t.integer('event_index').notNullable().comment('Position of that event in its block');
    t.primary(['asset_identifier', 'value_hex']);
  });
  await knex.raw('CREATE INDEX nft_holdings_owner ON nft_holdings (owner, asset_identifier, value_hex)');
  await knex.raw(`COMMENT ON INDEX nft_holdings_owner IS 'Accounts: the values a principal holds, in asset and value order'`);
  await knex.schema.createTable('nft_holding_counts', (t) => {
    t.comment('Per principal: the NFT values it holds at the canonical tip (rows of nft_holdings, kept by triggers)');
    t.specificType('owner', 'text COLLATE "C"').primary().comment('Principal');
    t.integer('held').notNullable().comment('Its rows of nft_holdings');
  });
  await knex.raw('CREATE INDEX nft_holding_counts_empty ON nft_holding_counts (owner) WHERE held = 0');
  await knex.raw(`COMMENT ON INDEX nft_holding_counts_empty IS 'Rows whose last value left, deleted by the same trigger'`);
  const sources = {
    insert: 'SELECT 1 AS sign, n.owner FROM new_rows n',
    delete: 'SELECT -1 AS sign, o.owner FROM old_rows o',
    update: 'SELECT -1 AS sign, o.owner FROM old_rows o UNION ALL SELECT 1, n.owner FROM new_rows n',
  };
  await createStatementTriggers(
    knex,
    'nft_holdings',
    'nft_holding_counts',
    (op) => `INSERT INTO nft_holding_counts AS t (owner, held)
      ${holdingCounts(sources[op])}
      ON CONFLICT (owner) DO UPDATE SET held = t.held + excluded.held;
    DELETE FROM nft_holding_counts WHERE held = 0;`,
  );
  await knex.raw(
    `INSERT INTO nft_holdings (asset_identifier, value_hex, owner, block_height, event_index)
     SELECT asset_identifier, value_hex, owner, block_height, event_index FROM (
       SELECT DISTINCT ON (asset_identifier, value_hex) asset_identifier, value_hex, owner, block_height, event_index
       FROM nft_owner_changes ORDER BY asset_identifier, value_hex, block_height DESC, event_index DESC
     ) newest WHERE owner IS NOT NULL`,
  );
}

/** Rows of `source` (a `sign`: +1 entering, -1 leaving) summed per owner. */
function holdingCounts(source: string): string {
  return `SELECT r.owner, sum(r.sign)::integer FROM (${source}) r GROUP BY r.owner HAVING sum(r.sign) <> 0`;
}

export async function down(knex: Knex): Promise<void> {
  await dropStatementTriggers(knex, 'nft_holdings', 'nft_holding_counts');
  await knex.schema.dropTable('nft_holding_counts');
  await knex.schema.dropTable('nft_holdings');
  await knex.raw('DROP INDEX token_balances_by_asset');
}
