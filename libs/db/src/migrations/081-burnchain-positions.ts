import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * `chain_burnchain_positions` (issue 24, deep pages): where each canonical burn block's rows start in the lists of
 * `/extended/v1/burnchain/rewards` (`list` 'rewards') and `/reward_slot_holders` ('slots'), counted from the oldest.
 * A page at any offset is then one index lookup (the burn block holding that position,
 * `chain_burnchain_positions_start`) and a walk of the canonical rows from that burn block, skipping fewer rows than
 * it holds: no OFFSET over the tables. Kept by the indexer with each burn block
 * (`services/indexer/src/chain/burnchain-positions.ts`): the rows from its height up are computed again (one row
 * per list when the burnchain grows). Only burn blocks with rows in the list have one. `up` fills it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_burnchain_positions', (t) => {
    t.comment('Per canonical burn block and burnchain list: how many canonical rows of the list come before it');
    t.text('list').notNullable().comment("'rewards' (burn_block_rewards) or 'slots' (burn_block_slot_holders)");
    t.integer('burn_block_height').notNullable().comment('Bitcoin height of the canonical burn block');
    t.bigInteger('rows_before').notNullable().comment('Canonical rows of the list at lower heights');
    t.integer('row_count').notNullable().comment('Canonical rows of the list at this height (never 0)');
    t.primary(['list', 'burn_block_height']);
  });
  await bytewiseText(knex, 'chain_burnchain_positions');
  await knex.raw(
    `CREATE INDEX chain_burnchain_positions_start ON chain_burnchain_positions (list, rows_before)
     INCLUDE (burn_block_height, row_count)`,
  );
  await knex.raw(`COMMENT ON INDEX chain_burnchain_positions_start IS 'The burn block holding a position of a burnchain list'`);
  await knex.raw(
    `INSERT INTO chain_burnchain_positions (list, burn_block_height, rows_before, row_count)
     SELECT g.list, g.h, sum(g.n) OVER (PARTITION BY g.list ORDER BY g.h) - g.n, g.n
     FROM (
       SELECT 'rewards' AS list, burn_block_height AS h, count(*) AS n FROM burn_block_rewards WHERE canonical
       GROUP BY burn_block_height
       UNION ALL
       SELECT 'slots', burn_block_height, count(*) FROM burn_block_slot_holders WHERE canonical GROUP BY burn_block_height
     ) g`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_burnchain_positions');
}
