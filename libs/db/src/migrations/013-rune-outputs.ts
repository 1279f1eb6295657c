import type { Knex } from 'knex';

/** Rune ledger: the outputs holding runes, kept a while after they are spent so a reorg can restore them. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rune_outputs', (t) => {
    t.comment(
      'Transaction outputs holding runes, one row per output and rune; spent rows stay (spent_height) for the reorg window, then are pruned',
    );
    t.binary('tx_id').notNullable().comment('Transaction id, 32 bytes in display order');
    t.integer('vout').notNullable().comment('Output index');
    t.integer('rune_number').notNullable().comment('The rune (runes.number)');
    t.text('address')
      .nullable()
      .comment('Address of the output script; null when it has none (P2PK, bare multisig, non-standard)');
    t.specificType('amount', 'numeric(39,0)').notNullable().comment('Amount held, base units');
    t.integer('created_height').notNullable().index('rune_outputs_created').comment('Height of the block that created it');
    t.integer('spent_height').nullable().comment('Height of the block that spent it; null while unspent');
    t.primary(['tx_id', 'vout', 'rune_number']);
  });
  await knex.raw('CREATE INDEX rune_outputs_spent ON rune_outputs (spent_height) WHERE spent_height IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rune_outputs');
}
