import type { Knex } from 'knex';

/**
 * `data_epoch` (issue 26, ADR 0048): one counter that every transaction changing what the api answers raises, right
 * before its commit, after fencing the new value on Redis (the indexer's `RecordApplier`). The api reads it before a
 * plain GET route's statement when the gateway asks (`x-bda-want-data-epoch: 1`) and sends it back
 * (`x-bda-data-epoch`): the gateway keeps and serves an answer only while its epoch is the one its fence holder serves.
 *
 * Exactly one row (the check on `id`), written by this migration, so that the writers only ever update it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('data_epoch', (t) => {
    t.comment('The data epoch: raised by every transaction that changes what the api answers (ADR 0048); one row');
    t.smallint('id').primary().defaultTo(1).comment('Always 1: the table has exactly one row');
    t.bigInteger('epoch')
      .notNullable()
      .defaultTo(0)
      .comment('Raised by one by each writing transaction of an indexer that fences (0: none yet)');
  });
  await knex.raw('ALTER TABLE data_epoch ADD CONSTRAINT data_epoch_one_row CHECK (id = 1)');
  await knex('data_epoch').insert({ id: 1, epoch: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('data_epoch');
}
