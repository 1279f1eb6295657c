import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * PoX reward cycles and their signers (issue 24), from the `reward_set` a Nakamoto-era node sends with the block that
 * fixes a cycle's reward set (with `cycle_number`):
 * - `pox_reward_sets`: the reward set of every block that carried one, canonical or not, as the node sent it (written
 *   with the block, so a reorg can bring it back);
 * - `pox_cycles` and `pox_cycle_signers`: read models of the canonical chain, kept by the indexer
 *   (`services/indexer/src/pox/`): per cycle, the reward set of the lowest canonical block that carried one, its
 *   totals, and its signers with their shares. Recomputed per cycle whenever a block carrying one joins or leaves.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pox_reward_sets', (t) => {
    t.comment('The reward_set of each block that carried one, as the node sent it (canonical or not)');
    t.text('index_block_hash').primary().comment('Block that carried it');
    t.integer('block_height').notNullable().comment('Its height');
    t.integer('cycle_number').notNullable().comment('Reward cycle the set is for');
    t.decimal('pox_ustx_threshold', 40, 0).nullable().comment('Micro-STX per reward slot, as sent');
    t.jsonb('signers').notNullable().comment('[{signing_key, weight, stacked_amt}] as sent ([] when it had none)');
  });
  await bytewiseText(knex, 'pox_reward_sets');
  await knex.raw('CREATE INDEX pox_reward_sets_cycle ON pox_reward_sets (cycle_number, block_height)');

  await knex.schema.createTable('pox_cycles', (t) => {
    t.comment('Reward cycles whose reward set a canonical block carried (the v2 PoX cycle views)');
    t.integer('cycle_number').primary().comment('Reward cycle');
    t.text('index_block_hash').notNullable().comment('Lowest canonical block that carried its reward set');
    t.integer('block_height').notNullable().comment('Its height');
    t.integer('total_weight').notNullable().comment('Sum of the signers’ weights');
    t.decimal('total_stacked_amount', 40, 0).notNullable().comment('Sum of the signers’ stacked micro-STX');
    t.integer('total_signers').notNullable().comment('Number of signers');
  });
  await bytewiseText(knex, 'pox_cycles');

  await knex.schema.createTable('pox_cycle_signers', (t) => {
    t.comment('The signers of each cycle in pox_cycles, with their shares');
    t.integer('cycle_number').notNullable().comment('Reward cycle');
    t.text('signing_key').notNullable().comment('Signer public key, 0x hex (33 bytes compressed)');
    t.text('signer_address').notNullable().comment('Stacks address of the key (p2pkh, the chain’s network)');
    t.integer('weight').notNullable().comment('Signer weight (reward slots)');
    t.decimal('stacked_amount', 40, 0).notNullable().comment('Micro-STX stacked with this signer');
    t.double('weight_percent').notNullable().comment('weight / total_weight × 100');
    t.double('stacked_amount_percent').notNullable().comment('stacked_amount / total_stacked_amount × 100');
    t.primary(['cycle_number', 'signing_key']);
  });
  await bytewiseText(knex, 'pox_cycle_signers');
  await knex.raw(
    'CREATE INDEX pox_cycle_signers_order ON pox_cycle_signers (cycle_number, weight DESC, stacked_amount DESC, signing_key)',
  );
  await knex.raw('CREATE INDEX pox_cycle_signers_key ON pox_cycle_signers (signing_key, cycle_number)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('pox_cycle_signers');
  await knex.schema.dropTable('pox_cycles');
  await knex.schema.dropTable('pox_reward_sets');
}
