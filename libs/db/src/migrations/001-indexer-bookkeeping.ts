import type { Knex } from 'knex';

/** Consumed positions, dead letters and parked blocks: the indexer's own bookkeeping. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('consumer_positions', (t) => {
    t.comment('Last bus position applied per topic; written in the same transaction as the data it covers');
    t.text('topic').primary().comment('Bus topic name');
    t.bigInteger('position').notNullable().comment('Position (Kafka offset / log id) of the last applied record');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it last moved');
  });
  await knex.schema.createTable('dead_letters', (t) => {
    t.comment('Messages that could not be applied; kept with the reason, never blocking the stream');
    t.bigIncrements('id').comment('Row id');
    t.text('topic').notNullable().comment('Bus topic');
    t.bigInteger('position').notNullable().comment('Bus position of the message');
    t.text('path').nullable().comment('Observer path of the envelope, when it could be read');
    t.text('reason').notNullable().comment('Why it could not be applied');
    t.binary('value').notNullable().comment('The raw envelope bytes');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was recorded');
    t.unique(['topic', 'position']);
  });
  await knex.schema.createTable('parked_blocks', (t) => {
    t.comment('Blocks whose parent has not arrived yet; applied once it does');
    t.text('index_block_hash').primary().comment('The parked block');
    t.text('parent_index_block_hash').notNullable().index().comment('The parent it waits for');
    t.integer('block_height').notNullable().comment('Its height');
    t.text('body').notNullable().comment('The /new_block body as received (JSON text)');
    t.text('received_at').notNullable().comment('Envelope receive time');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('parked_blocks');
  await knex.schema.dropTable('dead_letters');
  await knex.schema.dropTable('consumer_positions');
}
