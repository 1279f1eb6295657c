import type { Knex } from 'knex';

/**
 * Lookups of the token endpoints (`/extended/v1/tokens/nft/history`, `/nft/mints`, `/ft/{token}/holders`): the
 * committed canonical events of one NFT value and the mints of one NFT class, newest first, and the holders of one
 * fungible token, largest balance first; each one index range. Indexes only.
 */
const INDEXES: Array<[string, string, string]> = [
  [
    'events_nft_value',
    `ON events (asset_identifier, value_hex, block_height DESC, event_index DESC)
     WHERE canonical AND committed AND type IN ('nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`,
    'Tokens: committed canonical events of one NFT value, newest first',
  ],
  [
    'events_nft_mints',
    `ON events (asset_identifier, block_height DESC, event_index DESC) WHERE canonical AND committed AND type = 'nft_mint_event'`,
    'Tokens: committed canonical mints of one NFT class, newest first',
  ],
  [
    'token_balances_holders',
    'ON token_balances (kind, asset_identifier, balance DESC, principal)',
    'Tokens: holders of one token, largest balance first',
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
