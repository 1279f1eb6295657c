import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * `chain_tx_positions` (issue 24, deep pages): where each canonical block's transactions start in the canonical list
 * of `/extended/v1/tx` (height order), for all transactions (`type_id` '') and per type. A page at any offset is then
 * one index lookup (the block holding that position, `chain_tx_positions_start`) and a walk of
 * `txs_canonical_order` (or `txs_canonical_type_order`) from that block, skipping fewer rows than the block holds: no
 * OFFSET over the table. Kept by the indexer in the block's transaction (`services/indexer/src/chain/tx-positions.ts`):
 * the rows from the lowest height a canonical change touches are computed again (one block's rows when the chain
 * grows). Only blocks with at least one transaction of the type have a row. `up` fills it from the indexed rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_tx_positions', (t) => {
    t.comment('Per canonical block and transaction type: how many canonical transactions of the type come before it');
    t.text('type_id').notNullable().comment("Transaction type (as txs.type_id), or '' for every type");
    t.integer('block_height').notNullable().comment('Height of the canonical block');
    t.bigInteger('txs_before').notNullable().comment('Canonical transactions of the type in lower blocks');
    t.integer('tx_count').notNullable().comment('Canonical transactions of the type in this block (never 0)');
    t.primary(['type_id', 'block_height']);
  });
  await bytewiseText(knex, 'chain_tx_positions');
  await knex.raw(
    'CREATE INDEX chain_tx_positions_start ON chain_tx_positions (type_id, txs_before) INCLUDE (block_height, tx_count)',
  );
  await knex.raw(`COMMENT ON INDEX chain_tx_positions_start IS 'The block holding a position of the canonical transaction list'`);
  await knex.raw(
    `INSERT INTO chain_tx_positions (type_id, block_height, txs_before, tx_count)
     SELECT g.type_id, g.block_height, sum(g.n) OVER (PARTITION BY g.type_id ORDER BY g.block_height) - g.n, g.n
     FROM (
       SELECT coalesce(t.type_id, '') AS type_id, t.block_height, count(*) AS n
       FROM txs t WHERE t.canonical
       GROUP BY GROUPING SETS ((t.block_height, t.type_id), (t.block_height))
     ) g`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_tx_positions');
}
