import type { Knex } from 'knex';

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
  for (const [op, delta] of [
    ['insert', "(SELECT count(*) FROM new_rows WHERE status = 'pending')"],
    ['delete', "- (SELECT count(*) FROM old_rows WHERE status = 'pending')"],
    [
      'update',
      "(SELECT count(*) FROM new_rows WHERE status = 'pending') - (SELECT count(*) FROM old_rows WHERE status = 'pending')",
    ],
  ] as const) {
    await knex.raw(`CREATE FUNCTION mempool_pending_count_on_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE mempool_pending_count SET pending = pending + ${delta};
        RETURN NULL;
      END $$`);
    const transition =
      op === 'insert'
        ? 'NEW TABLE AS new_rows'
        : op === 'delete'
          ? 'OLD TABLE AS old_rows'
          : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
    await knex.raw(`CREATE TRIGGER mempool_pending_count_${op} AFTER ${op.toUpperCase()} ON mempool_txs
      REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION mempool_pending_count_on_${op}()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const op of ['insert', 'delete', 'update']) {
    await knex.raw(`DROP TRIGGER mempool_pending_count_${op} ON mempool_txs`);
    await knex.raw(`DROP FUNCTION mempool_pending_count_on_${op}()`);
  }
  await knex.schema.dropTable('mempool_pending_count');
}
