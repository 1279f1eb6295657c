import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * Read models of the chain family's lists (issue 24), kept by the indexer with the canonical chain
 * (`services/indexer/src/chain/chain-read-models.ts`), so that no list counts or groups a big table per request:
 * - `chain_tx_counts`: canonical transactions per type, the `total` of `/extended/v1/tx` (with or without `type`);
 * - `chain_burn_blocks`: one row per burn block that holds canonical Stacks blocks, as the reference API's burn-block
 *   views see them (grouped from the canonical blocks), with a dense `ordinal` (1 for the lowest) so a page at any
 *   offset is an ordinal range, and the lowest and highest of its Stacks blocks (its blocks are usually that height
 *   range, but not always: mainnet's first Stacks block names a later burn block than its children).
 * `up` fills both from the rows already indexed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_tx_counts', (t) => {
    t.comment('Canonical transactions per type (the totals of /extended/v1/tx)');
    t.text('type_id').primary().comment('Transaction type, as txs.type_id');
    t.bigInteger('tx_count').notNullable().comment('Canonical transactions of that type');
  });
  await bytewiseText(knex, 'chain_tx_counts');
  await knex.schema.createTable('chain_burn_blocks', (t) => {
    t.comment('Burn blocks holding canonical Stacks blocks, with their dense order (the v2 burn-block views)');
    t.integer('burn_block_height').primary().comment('Bitcoin height');
    t.text('burn_block_hash').notNullable().comment('Bitcoin block hash (as its newest canonical Stacks block names it)');
    t.bigInteger('burn_block_time').notNullable().comment('Its time, Unix seconds');
    t.integer('first_block_height').notNullable().comment('Lowest canonical Stacks block in it');
    t.integer('last_block_height').notNullable().comment('Highest canonical Stacks block in it');
    t.bigInteger('tx_count').notNullable().comment('Transactions of those Stacks blocks');
    t.integer('ordinal').notNullable().comment('1 for the lowest such burn block, dense upwards');
  });
  await bytewiseText(knex, 'chain_burn_blocks');
  await knex.raw('CREATE INDEX chain_burn_blocks_ordinal ON chain_burn_blocks (ordinal)');
  await knex.raw('CREATE INDEX chain_burn_blocks_hash ON chain_burn_blocks (burn_block_hash)');
  await knex.raw(
    `INSERT INTO chain_tx_counts (type_id, tx_count) SELECT type_id, count(*) FROM txs WHERE canonical GROUP BY type_id`,
  );
  await knex.raw(
    `INSERT INTO chain_burn_blocks (burn_block_height, burn_block_hash, burn_block_time, first_block_height,
                                    last_block_height, tx_count, ordinal)
     SELECT burn_block_height, (array_agg(burn_block_hash ORDER BY block_height DESC))[1],
            (array_agg(burn_block_time ORDER BY block_height DESC))[1], min(block_height), max(block_height), sum(tx_count),
            row_number() OVER (ORDER BY burn_block_height)
     FROM blocks WHERE canonical GROUP BY burn_block_height`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_burn_blocks');
  await knex.schema.dropTable('chain_tx_counts');
}
