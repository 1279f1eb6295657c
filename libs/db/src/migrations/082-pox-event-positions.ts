import type { Knex } from 'knex';

/**
 * `chain_pox_positions` (issue 24, deep pages): where each canonical block's PoX events start in the list of
 * `/extended/v1/pox{2,3,4}/events` of their contract, counted from the oldest. A page at any offset is then one index
 * lookup (`chain_pox_positions_start`) and a walk of `pox_events_order` from that block, skipping fewer events than
 * the block holds. Kept by the indexer beside `pox_events` (`services/indexer/src/pox/pox-positions.ts`): the rows from
 * the lowest height of the blocks that join or leave the canonical chain up are computed again. Only blocks with
 * events of the contract have a row. `up` fills it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_pox_positions', (t) => {
    t.comment('Per canonical block and PoX contract: how many of its decoded PoX events come before the block');
    t.smallint('pox_version').notNullable().comment('2, 3 or 4, as pox_events.pox_version');
    t.integer('block_height').notNullable().comment('Height of the canonical block');
    t.bigInteger('events_before').notNullable().comment("The contract's PoX events in lower blocks");
    t.integer('event_count').notNullable().comment("The contract's PoX events in this block (never 0)");
    t.primary(['pox_version', 'block_height']);
  });
  await knex.raw(
    `CREATE INDEX chain_pox_positions_start ON chain_pox_positions (pox_version, events_before)
     INCLUDE (block_height, event_count)`,
  );
  await knex.raw(`COMMENT ON INDEX chain_pox_positions_start IS 'The block holding a position of a PoX event list'`);
  await knex.raw(
    `INSERT INTO chain_pox_positions (pox_version, block_height, events_before, event_count)
     SELECT g.pox_version, g.block_height, sum(g.n) OVER (PARTITION BY g.pox_version ORDER BY g.block_height) - g.n, g.n
     FROM (SELECT pox_version, block_height, count(*) AS n FROM pox_events GROUP BY pox_version, block_height) g`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_pox_positions');
}
