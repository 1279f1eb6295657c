import type { Knex } from 'knex';

/**
 * When the last applied record of each topic was received by the observer. With it, "how far behind the node is the
 * api" is one primary-key read: the observer's pacing asks any indexer replica for it (`GET /progress`), and a
 * standby replica, which applies nothing itself, answers from this column.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('consumer_positions', (t) => {
    t.timestamp('received_at', { useTz: true, precision: 3 })
      .nullable()
      .comment("Observer's receive time (envelope received_at) of the last applied record; null when unknown");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('consumer_positions', (t) => {
    t.dropColumn('received_at');
  });
}
