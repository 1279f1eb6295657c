import type { Knex } from 'knex';
import { createStatementTriggers, dropStatementTriggers } from './statement-triggers';

/**
 * How many transactions are pending in the mempool, kept as the mempool changes: the `total` of
 * `/extended/v1/tx/mempool` without filters reads this one row instead of counting the pending rows per request (a
 * cost that grew with the mempool: a node's can hold tens of thousands). Kept by statement-level triggers on
 * `mempool_txs`, as migration 085 keeps each principal's pending sums (ADR 0028): every way a transaction enters or
 * leaves the pending set is a row change there.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mempool_pending_count', (t) => {
    t.comment('The number of pending mempool transactions (one row, kept by triggers on mempool_txs)');
    t.boolean('id').primary().defaultTo(true).comment('Always true: the table has one row');
    t.integer('pending').notNullable().comment("Rows of mempool_txs whose status is 'pending'");
  });
  await knex.raw('ALTER TABLE mempool_pending_count ADD CONSTRAINT mempool_pending_count_one_row CHECK (id)');
  await knex.raw(
    "INSERT INTO mempool_pending_count (id, pending) SELECT true, count(*) FROM mempool_txs WHERE status = 'pending'",
  );
  const pending = (rows: string) => `(SELECT count(*) FROM ${rows} WHERE status = 'pending')`;
  const delta = {
    insert: pending('new_rows'),
    delete: `- ${pending('old_rows')}`,
    update: `${pending('new_rows')} - ${pending('old_rows')}`,
  };
  await createStatementTriggers(
    knex,
    'mempool_txs',
    'mempool_pending_count',
    (op) => `UPDATE mempool_pending_count SET pending = pending + ${delta[op]};`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await dropStatementTriggers(knex, 'mempool_txs', 'mempool_pending_count');
  await knex.schema.dropTable('mempool_pending_count');
}
