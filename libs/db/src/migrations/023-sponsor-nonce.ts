import type { Knex } from 'knex';

/**
 * The sponsor's account nonce of a sponsored transaction, mined or in the mempool, which the reference API shows as
 * `sponsor_nonce`. Null for a transaction that is not sponsored, and for rows written before this column existed.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['txs', 'mempool_txs']) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('sponsor_nonce').nullable().comment('Sponsor nonce, for sponsored transactions');
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['mempool_txs', 'txs']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('sponsor_nonce');
    });
  }
}
