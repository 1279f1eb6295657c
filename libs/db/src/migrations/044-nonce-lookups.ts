import type { Knex } from 'knex';

/**
 * Lookups of the nonce endpoints (ADR 0024): the highest nonce an address used as origin or as sponsor, mined
 * (canonical) or pending in the mempool, each one index probe whatever the address's history. Indexes only.
 */
const INDEXES: Array<[string, string, string]> = [
  [
    'txs_sender_nonce',
    'ON txs (sender_address, nonce DESC, block_height) WHERE canonical',
    'Nonces: highest canonical origin nonce of an address (up to a height)',
  ],
  [
    'txs_sponsor_nonce',
    'ON txs (sponsor_address, sponsor_nonce DESC, block_height) WHERE canonical AND sponsored',
    'Nonces: highest canonical sponsor nonce of an address (up to a height)',
  ],
  [
    'mempool_pending_sender_nonce',
    "ON mempool_txs (sender_address, nonce DESC) WHERE status = 'pending'",
    'Nonces: pending origin nonces of an address',
  ],
  [
    'mempool_pending_sponsor_nonce',
    "ON mempool_txs (sponsor_address, sponsor_nonce DESC) WHERE status = 'pending' AND sponsor_address IS NOT NULL",
    'Nonces: pending sponsor nonces of an address',
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
