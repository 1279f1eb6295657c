import type { Knex } from 'knex';

/** Transactions as mined in a block (one row per block that includes it: forks repeat a tx). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('txs', (t) => {
    t.comment('Mined transactions, decoded from raw_tx; one row per (tx, block)');
    t.text('tx_id').notNullable().comment('Transaction id (0x hex)');
    t.text('index_block_hash').notNullable().comment('Anchored block that includes it');
    t.text('block_hash').notNullable().comment('Its block hash');
    t.integer('block_height').notNullable().comment('Its height');
    t.bigInteger('burn_block_time').notNullable().comment('Burn time of the block, Unix seconds');
    t.bigInteger('block_time').nullable().comment('Block time (Nakamoto), Unix seconds');
    t.integer('burn_block_height').notNullable().comment('Burn height of the block');
    t.text('parent_index_block_hash').notNullable().comment('Parent of the including block');
    t.integer('tx_index').notNullable().comment('Position in the block');
    t.binary('raw_tx').notNullable().comment('Serialized transaction (0x00 for burnchain operations)');
    t.text('type_id')
      .notNullable()
      .comment('token_transfer | smart_contract | contract_call | poison_microblock | coinbase | tenure_change');
    t.text('status').notNullable().comment('success | abort_by_response | abort_by_post_condition | …');
    t.text('raw_result').notNullable().comment('Clarity result (hex)');
    t.text('vm_error').nullable().comment('VM error text, when the node gave one');
    t.text('sender_address').notNullable().comment('Origin address');
    t.text('sponsor_address').nullable().comment('Sponsor, for sponsored transactions');
    t.boolean('sponsored').notNullable().comment('Sponsored authorization');
    t.bigInteger('nonce').notNullable().comment('Origin nonce');
    t.decimal('fee_rate', 40, 0).notNullable().comment('Fee, micro-STX');
    t.text('anchor_mode').notNullable().comment('on_chain_only | off_chain_only | any');
    t.text('post_condition_mode').notNullable().comment('allow | deny');
    t.jsonb('post_conditions').notNullable().comment('Decoded post-conditions');
    t.jsonb('payload').notNullable().comment('Type-specific decoded payload');
    t.text('contract_id').nullable().index().comment('Contract deployed or called');
    t.jsonb('contract_abi').nullable().comment('ABI of a deployed contract');
    t.jsonb('burnchain_op').nullable().comment('Burnchain operation of a raw_tx 0x00 transaction');
    t.bigInteger('execution_cost_read_count').notNullable().defaultTo(0).comment('Execution cost');
    t.bigInteger('execution_cost_read_length').notNullable().defaultTo(0).comment('Execution cost');
    t.bigInteger('execution_cost_runtime').notNullable().defaultTo(0).comment('Execution cost');
    t.bigInteger('execution_cost_write_count').notNullable().defaultTo(0).comment('Execution cost');
    t.bigInteger('execution_cost_write_length').notNullable().defaultTo(0).comment('Execution cost');
    t.text('microblock_hash').nullable().comment('Microblock that first carried it (null: anchored)');
    t.integer('microblock_sequence').nullable().comment('Sequence of that microblock');
    t.text('microblock_parent_hash').nullable().comment('Parent of that microblock');
    t.integer('event_count').notNullable().comment('Number of events of this tx in the block');
    t.boolean('canonical').notNullable().comment('Its block is canonical');
    t.primary(['tx_id', 'index_block_hash']);
  });
  await knex.raw('CREATE INDEX txs_canonical_tx ON txs (tx_id) WHERE canonical');
  await knex.raw('CREATE INDEX txs_block ON txs (index_block_hash, tx_index)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('txs');
}
