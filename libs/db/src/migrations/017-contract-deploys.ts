import type { Knex } from 'knex';

/**
 * Finds a contract's canonical deploy transaction (its ABI names the arguments of calls to it) without scanning every
 * call: `txs.contract_id` is set on calls too, so an index on the column alone would read all of a busy contract's
 * calls to find the one deploy row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    "CREATE INDEX txs_contract_deploy ON txs (contract_id, block_height) WHERE type_id = 'smart_contract' AND canonical",
  );
  await knex.raw("COMMENT ON INDEX txs_contract_deploy IS 'Canonical deploy transaction of each contract (ABI lookups)'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX txs_contract_deploy');
}
