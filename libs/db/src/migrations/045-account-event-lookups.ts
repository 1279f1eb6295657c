import type { Knex } from 'knex';

/**
 * Lookups of the accounts family's event lists (`/extended/v1/address/{principal}/assets`, `/stx_inbound`,
 * `/transactions_with_transfers`, the v2 address transactions): a principal's committed canonical asset events as
 * sender or as recipient, newest first, each one index range whatever the size of `events`; and the canonical
 * token-transfer transactions to a recipient. Indexes only: no column changes.
 */
const ASSET_TYPES = `('stx_transfer_event', 'stx_mint_event', 'stx_burn_event', 'ft_transfer_event', 'ft_mint_event',
  'ft_burn_event', 'nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`;

const INDEXES: Array<[string, string, string]> = [
  [
    'events_asset_sender',
    `ON events (sender, block_height DESC, event_index DESC) WHERE canonical AND committed AND type IN ${ASSET_TYPES}`,
    'Accounts: committed canonical asset events a principal sent, newest first',
  ],
  [
    'events_asset_recipient',
    `ON events (recipient, block_height DESC, event_index DESC) WHERE canonical AND committed AND type IN ${ASSET_TYPES}`,
    'Accounts: committed canonical asset events a principal received, newest first',
  ],
  [
    'txs_token_transfer_recipient',
    `ON txs ((payload->>'recipient_address'), block_height DESC, tx_index DESC) WHERE canonical AND type_id = 'token_transfer'`,
    'Accounts: canonical token-transfer transactions to a recipient, newest first',
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
