import type { Knex } from 'knex';

/** Rune ledger: every etched rune with its terms and running totals. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('runes', (t) => {
    t.comment('Etched runes (the genesis rune on mainnet included) with running totals; rows of a rolled-back block are deleted');
    t.integer('number').primary().comment('Position in etching order from 0; dense, so it is also the key other rune tables use');
    t.integer('block_height').notNullable().comment('Etching block height: first half of the rune id');
    t.integer('tx_index').notNullable().comment('Etching transaction index: second half of the rune id');
    t.specificType('rune', 'numeric(39,0)')
      .notNullable()
      .unique()
      .comment('Name as its u128 value (unique: names are never reused)');
    t.integer('spacers').notNullable().comment('Spacer bits: bit i puts a • after letter i');
    t.smallint('divisibility').notNullable().comment('Fraction digits of display amounts (0–38)');
    t.text('symbol').nullable().comment('Currency symbol, one Unicode scalar value; null when none was etched');
    t.specificType('premine', 'numeric(39,0)').notNullable().comment('Premined amount, base units');
    t.boolean('has_terms').notNullable().comment('Whether the etching set open-mint terms');
    t.specificType('terms_amount', 'numeric(39,0)').nullable().comment('Amount per mint, base units; null when unset');
    t.specificType('terms_cap', 'numeric(39,0)').nullable().comment('Most mints allowed; null when unset (not mintable)');
    t.specificType('terms_height_start', 'numeric(20,0)').nullable().comment('Absolute first mint height (u64); null when unset');
    t.specificType('terms_height_end', 'numeric(20,0)')
      .nullable()
      .comment('Absolute end height, exclusive (u64); null when unset');
    t.specificType('terms_offset_start', 'numeric(20,0)')
      .nullable()
      .comment('First mint height relative to the etching block (u64); null when unset');
    t.specificType('terms_offset_end', 'numeric(20,0)')
      .nullable()
      .comment('End height relative to the etching block, exclusive (u64); null when unset');
    t.boolean('turbo').notNullable().comment('Opted in to future protocol changes');
    t.text('etching_tx_id').nullable().comment('Etching transaction, 0x + hex; null for the genesis rune');
    t.text('etching_block_hash').nullable().comment('Etching block hash, 0x + hex; null for the genesis rune');
    t.bigInteger('block_time').notNullable().comment('Etching block time, Unix seconds (0 for the genesis rune)');
    t.specificType('mints', 'numeric(39,0)').notNullable().defaultTo(0).comment('Mints so far (cenotaph mints included)');
    t.specificType('burned', 'numeric(39,0)').notNullable().defaultTo(0).comment('Amount burned so far, base units');
    t.bigInteger('burn_count').notNullable().defaultTo(0).comment('Burn rows in rune_activity');
    t.bigInteger('activity_count')
      .notNullable()
      .defaultTo(0)
      .comment('Rows in rune_activity (rune_seq runs 0 … activity_count - 1)');
    t.bigInteger('holder_count').notNullable().defaultTo(0).comment('Addresses with a positive balance in rune_balances');
    t.unique(['block_height', 'tx_index'], { indexName: 'runes_id' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('runes');
}
