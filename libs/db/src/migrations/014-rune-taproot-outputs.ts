import type { Knex } from 'knex';

/** Rune ledger: P2TR outputs with their height, for the etching commitment check (see ADR 0007). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rune_taproot_outputs', (t) => {
    t.comment(
      'P2TR outputs of every executed block, for the etching commitment check (spent output P2TR with 6 confirmations); spent rows are pruned after the reorg window',
    );
    t.binary('tx_id').notNullable().comment('Transaction id, 32 bytes in display order');
    t.integer('vout').notNullable().comment('Output index');
    t.integer('created_height')
      .notNullable()
      .index('rune_taproot_outputs_created')
      .comment('Height of the block that created it');
    t.integer('spent_height').nullable().comment('Height of the block that spent it; null while unspent');
    t.primary(['tx_id', 'vout']);
  });
  await knex.raw('CREATE INDEX rune_taproot_outputs_spent ON rune_taproot_outputs (spent_height) WHERE spent_height IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rune_taproot_outputs');
}
