import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * The liquid STX supply by height (issue 23: `/extended/v1/stx_supply…`, `/extended/v3/tokens/stx/supply`), as the
 * reference API counts it: every STX minted (effective `stx_mint_event`s), minus every STX burned (`stx_burn_event`s),
 * plus the coinbase of the matured miner rewards paid. One row per canonical block that changed it, holding the
 * running totals after that block, so the supply at the tip or at any height is one index read (the newest row at or
 * below it), never a sum over the events at request time. Kept by the indexer like the STX balances (ADR 0024):
 * `services/indexer/src/accounts/stx-supply.ts`. `up` fills it from the rows already indexed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stx_supply_changes', (t) => {
    t.comment('Running totals of the liquid STX supply after each canonical block that changed it');
    t.integer('block_height').primary().comment('Height of the block that changed it');
    t.text('index_block_hash').notNullable().comment('That block (deleted with it when it leaves the canonical chain)');
    t.decimal('total_minted', 40, 0).notNullable().comment('micro-STX minted up to the block');
    t.decimal('total_burned', 40, 0).notNullable().comment('micro-STX burned up to the block');
    t.decimal('total_coinbase', 40, 0).notNullable().comment('micro-STX of matured coinbase rewards paid up to the block');
    t.decimal('supply', 40, 0).notNullable().comment('minted - burned + coinbase, micro-STX');
  });
  await bytewiseText(knex, 'stx_supply_changes');
  await knex.raw('CREATE INDEX stx_supply_changes_block ON stx_supply_changes (index_block_hash)');
  await knex.raw(
    `WITH ev AS (
       SELECT e.index_block_hash, e.type, coalesce(e.amount, 0) AS amount
       FROM events e LEFT JOIN txs t ON t.tx_id = e.tx_id AND t.index_block_hash = e.index_block_hash
       WHERE e.canonical AND e.committed AND coalesce(t.status, 'success') = 'success'
         AND e.type IN ('stx_mint_event', 'stx_burn_event')
     ),
     delta AS (
       SELECT b.block_height, b.index_block_hash, coalesce(m.minted, 0) AS minted, coalesce(m.burned, 0) AS burned,
              coalesce(r.coinbase, 0) AS coinbase
       FROM blocks b
       LEFT JOIN (
         SELECT index_block_hash, sum(amount) FILTER (WHERE type = 'stx_mint_event') AS minted,
                sum(amount) FILTER (WHERE type = 'stx_burn_event') AS burned
         FROM ev GROUP BY index_block_hash
       ) m ON m.index_block_hash = b.index_block_hash
       LEFT JOIN (
         SELECT index_block_hash, sum(coinbase_amount) AS coinbase FROM miner_rewards GROUP BY index_block_hash
       ) r ON r.index_block_hash = b.index_block_hash
       WHERE b.canonical
     )
     INSERT INTO stx_supply_changes (block_height, index_block_hash, total_minted, total_burned, total_coinbase, supply)
     SELECT block_height, index_block_hash, sum(minted) OVER w, sum(burned) OVER w, sum(coinbase) OVER w,
            sum(minted - burned + coinbase) OVER w
     FROM delta
     WHERE minted <> 0 OR burned <> 0 OR coinbase <> 0
     WINDOW w AS (ORDER BY block_height)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('stx_supply_changes');
}
