import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * Read models of `/extended/v1/burnchain/…` (issue 24), kept by the indexer with the burn blocks' canonical flags
 * (`services/indexer/src/chain/burnchain-rewards.ts`), so that no page counts or sums the reward tables per request:
 * - `burn_block_rewards.canonical` and `burn_block_slot_holders.canonical`: the flag of their burn block (the newest
 *   seen at its height), copied so the lists walk partial indexes of canonical rows in the reference API's order
 *   (height, then position, newest first), for everyone or one address;
 * - `chain_burnchain_totals`: per Bitcoin address, its canonical reward slots and the satoshis of its canonical
 *   rewards; the row of address `''` holds the totals over every address (the slot holders list's `total`).
 * `up` fills them from the rows already indexed.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['burn_block_rewards', 'burn_block_slot_holders']) {
    await knex.raw(`ALTER TABLE ${table} ADD COLUMN canonical boolean NOT NULL DEFAULT true`);
    await knex.raw(`COMMENT ON COLUMN ${table}.canonical IS 'Its burn block is canonical (the newest seen at its height)'`);
    await knex.raw(
      `UPDATE ${table} x SET canonical = false FROM burn_blocks b WHERE b.burn_block_hash = x.burn_block_hash AND NOT b.canonical`,
    );
  }
  await knex.raw(
    `CREATE INDEX burn_block_rewards_canonical_order ON burn_block_rewards (burn_block_height DESC, reward_index DESC)
     WHERE canonical`,
  );
  await knex.raw(
    `CREATE INDEX burn_block_rewards_canonical_recipient
     ON burn_block_rewards (recipient, burn_block_height DESC, reward_index DESC) WHERE canonical`,
  );
  await knex.raw(
    `CREATE INDEX burn_block_slot_holders_canonical_order ON burn_block_slot_holders (burn_block_height DESC, slot_index DESC)
     WHERE canonical`,
  );
  await knex.raw(
    `CREATE INDEX burn_block_slot_holders_canonical_address
     ON burn_block_slot_holders (address, burn_block_height DESC, slot_index DESC) WHERE canonical`,
  );
  await knex.schema.createTable('chain_burnchain_totals', (t) => {
    t.comment("Canonical PoX reward slots and rewards per Bitcoin address ('' = every address)");
    t.text('address').primary().comment("Bitcoin address, or '' for the totals over every address");
    t.bigInteger('slot_count').notNullable().comment('Canonical reward slots it holds');
    t.decimal('reward_amount', 40, 0).notNullable().comment('Satoshis of its canonical rewards');
  });
  await bytewiseText(knex, 'chain_burnchain_totals');
  await knex.raw(
    `INSERT INTO chain_burnchain_totals (address, slot_count, reward_amount)
     SELECT address, sum(slots), sum(amount) FROM (
       SELECT address, count(*) AS slots, 0::numeric AS amount FROM burn_block_slot_holders WHERE canonical AND address <> '' GROUP BY address
       UNION ALL SELECT recipient, 0, sum(amount) FROM burn_block_rewards WHERE canonical AND recipient <> '' GROUP BY recipient
       UNION ALL SELECT '', (SELECT count(*) FROM burn_block_slot_holders WHERE canonical),
                    (SELECT coalesce(sum(amount), 0) FROM burn_block_rewards WHERE canonical)
     ) x GROUP BY address`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_burnchain_totals');
  await knex.raw('DROP INDEX burn_block_slot_holders_canonical_address');
  await knex.raw('DROP INDEX burn_block_slot_holders_canonical_order');
  await knex.raw('DROP INDEX burn_block_rewards_canonical_recipient');
  await knex.raw('DROP INDEX burn_block_rewards_canonical_order');
  await knex.raw('ALTER TABLE burn_block_slot_holders DROP COLUMN canonical');
  await knex.raw('ALTER TABLE burn_block_rewards DROP COLUMN canonical');
}
