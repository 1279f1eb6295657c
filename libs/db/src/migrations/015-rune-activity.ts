import type { Knex } from 'knex';

/**
 * Rune ledger read model: every activity row, numbered so each list is a positional index range — per block (and
 * per block and operation), per rune, per address, per rune and address — plus the transactions that have rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rune_activity', (t) => {
    t.comment('Rune activity rows in chain order; every list endpoint reads a range of one of its numberings');
    t.integer('block_height').notNullable().comment('Block height');
    t.integer('position')
      .notNullable()
      .comment('Row position within the block, from 0, in chain order (tx_index, then effect order)');
    t.integer('tx_index').notNullable().comment('Transaction index in the block');
    t.text('tx_id').notNullable().comment('Transaction id, 0x + 64 lower-case hex');
    t.integer('rune_number').notNullable().comment('The rune (runes.number)');
    t.smallint('operation').notNullable().comment('0 etching, 1 mint, 2 burn, 3 send, 4 receive');
    t.text('address').nullable().comment('Acting address (receiver for receive, spender for send and burn); null when none');
    t.text('receiver_address').nullable().comment('Receiving address of a send; null otherwise or when it has none');
    t.specificType('amount', 'numeric(39,0)').nullable().comment('Amount in base units; null for etching');
    t.integer('vout').nullable().comment('Output involved (receiving output, or the OP_RETURN of a burn); null when none');
    t.integer('op_position').notNullable().comment('Position among the rows of the same operation in the block, from 0');
    t.integer('before_etching').notNullable().comment('Etching rows before this one in the block (for multi-operation filters)');
    t.integer('before_mint').notNullable().comment('Mint rows before this one in the block');
    t.integer('before_burn').notNullable().comment('Burn rows before this one in the block');
    t.integer('before_send').notNullable().comment('Send rows before this one in the block');
    t.integer('before_receive').notNullable().comment('Receive rows before this one in the block');
    t.bigInteger('rune_seq').notNullable().comment("Position among the rune's rows in chain order, from 0");
    t.bigInteger('address_seq')
      .nullable()
      .comment("Position among the address's rows in chain order, from 0; null without address");
    t.bigInteger('rune_address_seq')
      .nullable()
      .comment('Position among the rows of this rune and address, from 0; null without address');
    t.primary(['block_height', 'position']);
  });
  await knex.raw('ALTER TABLE rune_activity ADD CONSTRAINT rune_activity_operation CHECK (operation BETWEEN 0 AND 4)');
  await knex.raw('CREATE UNIQUE INDEX rune_activity_block_op ON rune_activity (block_height, operation, op_position)');
  await knex.raw('CREATE UNIQUE INDEX rune_activity_rune ON rune_activity (rune_number, rune_seq)');
  await knex.raw('CREATE UNIQUE INDEX rune_activity_address ON rune_activity (address, address_seq) WHERE address IS NOT NULL');
  await knex.raw(
    'CREATE UNIQUE INDEX rune_activity_rune_address ON rune_activity (rune_number, address, rune_address_seq) WHERE address IS NOT NULL',
  );
  await knex.schema.createTable('rune_txs', (t) => {
    t.comment('Transactions with rune activity: where their rows are (a contiguous range of positions in one block)');
    t.text('tx_id').primary().comment('Transaction id, 0x + 64 lower-case hex');
    t.integer('block_height').notNullable().index('rune_txs_block').comment('Block height');
    t.integer('tx_index').notNullable().comment('Transaction index in the block');
    t.integer('first_position').notNullable().comment('Position of its first row in rune_activity');
    t.integer('activity_count').notNullable().comment('Number of its rows');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rune_txs');
  await knex.schema.dropTable('rune_activity');
}
