import type { Knex } from 'knex';

/**
 * Lookups of the v3 principal positions (`/extended/v3/principals/{principal}/balances/ft` in balance order,
 * `/balances/nft` and `/extended/v1/tokens/nft/holdings` in asset and value order): a principal's positive FT balances
 * largest first, and the NFT values it was ever left holding, each one index range. Indexes only.
 */
const INDEXES: Array<[string, string, string]> = [
  [
    'token_balances_by_balance',
    'ON token_balances (principal, kind, balance DESC, asset_identifier) WHERE balance > 0',
    "Accounts: a principal''s positive token balances, largest first",
  ],
  [
    'nft_owner_changes_holdings',
    'ON nft_owner_changes (owner, asset_identifier, value_hex) WHERE owner IS NOT NULL',
    'Accounts: NFT values a principal was left holding, in asset and value order (checked against newer rows)',
  ],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, on, comment] of INDEXES) {
    await knex.raw(`CREATE INDEX ${name} ${on}`);
    await knex.raw(`COMMENT ON INDEX ${name} IS '${comment}'`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`DROP INDEX ${name}`);
}
