import type { Knex } from 'knex';

/** Transaction events: asset movements, STX locks and contract logs. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.comment('Events of mined transactions; only committed events of successful txs carry effects');
    t.text('index_block_hash').notNullable().comment('Block of the event');
    t.integer('event_index').notNullable().comment('Index in the block');
    t.text('tx_id').notNullable().comment('Transaction that emitted it');
    t.integer('tx_index').notNullable().comment('Position of that tx in the block');
    t.integer('block_height').notNullable().comment('Block height');
    t.text('type').notNullable().comment('stx_transfer_event, ft_mint_event, contract_event, …');
    t.boolean('committed').notNullable().comment('committed flag from the node');
    t.text('asset_identifier').nullable().comment('FT/NFT asset identifier');
    t.text('sender').nullable().index().comment('Sending principal');
    t.text('recipient').nullable().index().comment('Receiving principal');
    t.decimal('amount', 40, 0).nullable().comment('Amount (micro-STX or FT base units)');
    t.text('memo').nullable().comment('STX transfer memo (hex)');
    t.text('value_hex').nullable().comment('NFT value or contract log value (Clarity hex)');
    t.text('value_repr').nullable().comment('Its Clarity literal');
    t.text('contract_identifier').nullable().comment('Contract that printed the log, or lock contract');
    t.text('topic').nullable().comment('Contract log topic (print)');
    t.decimal('locked_amount', 40, 0).nullable().comment('STX lock amount');
    t.bigInteger('unlock_height').nullable().comment('STX lock unlock burn height');
    t.text('locked_address').nullable().comment('STX lock address');
    t.boolean('canonical').notNullable().comment('Its block is canonical');
    t.primary(['index_block_hash', 'event_index']);
  });
  await knex.raw('CREATE INDEX events_tx ON events (tx_id, index_block_hash, event_index)');
  await knex.raw(
    "CREATE INDEX events_contract_log ON events (contract_identifier, block_height DESC, event_index DESC) WHERE canonical AND type = 'contract_event'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('events');
}
