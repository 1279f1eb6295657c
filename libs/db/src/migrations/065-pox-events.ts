import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * The PoX read model (issue 24): the `print` events of the boot contracts `pox-2`, `pox-3` and `pox-4` of canonical
 * blocks, decoded by the indexer (`services/indexer/src/pox/`) in the block's transaction and deleted when the block
 * leaves the canonical chain. Only canonical rows are kept, so every read is a range of one of the indexes below.
 * `data` is the event's own fields as the API answers them (decimal strings); the columns beside it are the ones the
 * lists filter and order on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pox_events', (t) => {
    t.comment('Decoded print events of the PoX boot contracts (pox-2, pox-3, pox-4) of canonical blocks');
    t.text('index_block_hash').notNullable().comment('Block of the event');
    t.integer('event_index').notNullable().comment('Index of the print event in the block');
    t.smallint('pox_version').notNullable().comment('2, 3 or 4: the boot contract (pox-2, pox-3, pox-4) that printed it');
    t.integer('block_height').notNullable().comment('Stacks height');
    t.text('tx_id').notNullable().comment('Transaction that emitted it');
    t.integer('tx_index').notNullable().comment('Position of that transaction in the block');
    t.text('name').notNullable().comment('Operation: stack-stx, delegate-stx, stack-aggregation-commit, handle-unlock, …');
    t.text('stacker').notNullable().comment('Principal whose STX the operation concerns');
    t.decimal('locked', 40, 0).notNullable().comment('Locked micro-STX after the operation (as the reference API patches it)');
    t.decimal('balance', 40, 0).notNullable().comment('Unlocked micro-STX after the operation (patched likewise)');
    t.bigInteger('burnchain_unlock_height').notNullable().comment('Burn height at which the lock ends (patched likewise)');
    t.text('pox_addr').nullable().comment('Reward address in Bitcoin form, when the event carries one that encodes');
    t.text('pox_addr_raw').nullable().comment('Reward address as version byte + hashbytes (0x hex), when carried');
    t.text('delegator').nullable().comment('Pool operator of delegate-stack-* operations');
    t.text('delegate_to').nullable().comment('Pool of delegate-stx and revoke-delegate-stx');
    t.text('signer_key').nullable().comment('Signer public key (0x hex) of pox-4 operations that name one');
    t.bigInteger('start_cycle_id').nullable().comment('First reward cycle the operation affects (pox-4)');
    t.bigInteger('end_cycle_id').nullable().comment('Reward cycle it no longer affects (pox-4; null = open)');
    t.decimal('amount_ustx', 40, 0).nullable().comment('amount-ustx of delegations and aggregation commits');
    t.bigInteger('unlock_burn_height').nullable().comment('unlock-burn-height of the event data, when it has one');
    t.jsonb('data').notNullable().comment('The event data as the API answers it (decimal strings)');
    t.primary(['index_block_hash', 'event_index']);
  });
  await bytewiseText(knex, 'pox_events');
  await knex.raw('CREATE INDEX pox_events_order ON pox_events (pox_version, block_height DESC, tx_index DESC, event_index DESC)');
  await knex.raw('CREATE INDEX pox_events_tx ON pox_events (pox_version, tx_id)');
  await knex.raw(
    'CREATE INDEX pox_events_stacker ON pox_events (pox_version, stacker, block_height DESC, tx_index DESC, event_index DESC)',
  );
  await knex.raw(
    `CREATE INDEX pox_events_delegations ON pox_events (pox_version, delegate_to, stacker, block_height DESC, tx_index DESC, event_index DESC)
     WHERE name IN ('delegate-stx', 'revoke-delegate-stx')`,
  );
  await knex.raw('CREATE INDEX pox_events_signer_key ON pox_events (signer_key, start_cycle_id) WHERE signer_key IS NOT NULL');
  await knex.raw(`CREATE INDEX pox_events_delegator ON pox_events (delegator, start_cycle_id) WHERE delegator IS NOT NULL`);
  await knex.raw(
    `COMMENT ON INDEX pox_events_delegations IS 'A pool''s delegations: the newest delegate-stx or revoke per stacker'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('pox_events');
}
