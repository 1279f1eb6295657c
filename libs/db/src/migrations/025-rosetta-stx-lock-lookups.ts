import type { Knex } from 'knex';

/**
 * Lookups of the Rosetta reads (`/rosetta/v1/block` and `/account/balance`) over committed canonical STX lock events:
 * an account's latest lock up to a block (its locked balance, and the lock a new lock event replaces), and the locks
 * that expire at a block's burn height (its `stx_unlock` operations). Indexes only: no column changes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX events_stx_lock_address ON events (locked_address, block_height DESC, event_index DESC)
     WHERE type = 'stx_lock_event' AND canonical AND committed`,
  );
  await knex.raw(
    `CREATE INDEX events_stx_lock_unlock_height ON events (unlock_height)
     WHERE type = 'stx_lock_event' AND canonical AND committed`,
  );
  await knex.raw(
    `COMMENT ON INDEX events_stx_lock_address IS 'Rosetta: latest committed canonical STX lock of an address up to a height'`,
  );
  await knex.raw(
    `COMMENT ON INDEX events_stx_lock_unlock_height IS 'Rosetta: committed canonical STX locks expiring in a burn height range'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX events_stx_lock_unlock_height');
  await knex.raw('DROP INDEX events_stx_lock_address');
}
