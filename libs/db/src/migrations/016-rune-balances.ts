import type { Knex } from 'knex';

/** Rune ledger read model: balances per rune and address, and per-address totals. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rune_balances', (t) => {
    t.comment('Balance and activity count per rune and address; a row exists while the pair has activity rows');
    t.integer('rune_number').notNullable().comment('The rune (runes.number)');
    t.text('address').notNullable().comment('Address');
    t.specificType('balance', 'numeric(39,0)').notNullable().comment('Amount held in unspent outputs, base units');
    t.bigInteger('activity_count').notNullable().comment('Rows in rune_activity for this rune with this address');
    t.primary(['rune_number', 'address']);
  });
  await knex.raw('CREATE INDEX rune_balances_holders ON rune_balances (rune_number, balance DESC, address) WHERE balance > 0');
  await knex.raw('CREATE INDEX rune_balances_address ON rune_balances (address, rune_number) WHERE balance > 0');
  await knex.schema.createTable('rune_addresses', (t) => {
    t.comment('Per-address totals; a row exists while the address has activity rows');
    t.text('address').primary().comment('Address');
    t.bigInteger('activity_count').notNullable().comment('Rows in rune_activity with this address (address_seq runs 0 … n - 1)');
    t.integer('rune_count').notNullable().comment('Runes it holds a positive balance of');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rune_addresses');
  await knex.schema.dropTable('rune_balances');
}
