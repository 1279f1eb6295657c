import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * `block_tx_ids` (issue 24): each block's transaction ids as the reference API's v1 `Block.txs` lists them, kept as
 * the JSON text the answer carries, with how many of its transactions each microblock carried. A page of
 * `/extended/v1/block` reads one row per block by primary key instead of aggregating and sorting the rows of its
 * transactions (20 blocks of 50 transactions: 1,000 `txs` rows a page), and the api copies the text into its answer
 * without parsing an array of ids (node-postgres' array parser was half of the api's CPU on that page).
 *
 * The order is the reference's (`ORDER BY microblock_sequence DESC, tx_index DESC` over the block's rows, anchored
 * transactions counting as the highest sequence): the anchored ones first, then the microblock ones from the newest
 * microblock, each part from the highest position down. Every block has its row, canonical or not: a block's
 * transactions are written with it once (`txs` rows are never updated but for `canonical`, which this table does not
 * carry), so a reorg has nothing to undo here; the api reads the rows of canonical blocks only. Orphaned microblocks'
 * transactions never reach `txs` (they stay in `microblock_txs`), so they are in no block's list.
 *
 * Written by the indexer with the block's own rows (`services/indexer/src/chain/block-tx-ids.ts`, in
 * `insertBlockData`), once, as `txs` is (`ON CONFLICT DO NOTHING`): the JSON is made from the rows already in memory.
 * Statement-level triggers on `txs` were tried first and cost 2.7–6.5 ms a block of 50 transactions on the loaded
 * machine (a transition table of whole rows, then the block's rows read and sorted again), 40–85 % on top of the
 * `txs` insert itself. `up` fills it from the rows already indexed.
 */

/** Each block of `blocks` (a relation with an `index_block_hash` column) with its list and counts, from `txs`. */
function listsOf(blocks: string): string {
  return `SELECT k.index_block_hash, l.tx_ids, l.microblock_tx_counts
    FROM (SELECT DISTINCT index_block_hash FROM ${blocks}) k
    CROSS JOIN LATERAL (
      SELECT '[' || string_agg(to_json(t.tx_id)::text, ','
                               ORDER BY coalesce(t.microblock_sequence, 2147483647) DESC, t.tx_index DESC) || ']' AS tx_ids,
             (SELECT jsonb_object_agg(c.microblock_hash, c.n)
              FROM (SELECT u.microblock_hash, count(*) AS n FROM txs u
                    WHERE u.index_block_hash = k.index_block_hash AND u.microblock_hash IS NOT NULL
                    GROUP BY u.microblock_hash) c) AS microblock_tx_counts
      FROM txs t WHERE t.index_block_hash = k.index_block_hash
    ) l
    WHERE l.tx_ids IS NOT NULL`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('block_tx_ids', (t) => {
    t.comment('The transaction ids of each block in the order of the reference API v1 Block (written with the block)');
    t.text('index_block_hash').primary().comment('The block (txs.index_block_hash), canonical or not');
    t.text('tx_ids')
      .notNullable()
      .comment(
        'Its transaction ids as a JSON array text (no spaces): anchored ones first, then microblock ones from the newest microblock, each part by tx_index descending',
      );
    t.jsonb('microblock_tx_counts')
      .nullable()
      .comment('For each microblock that carried some of its transactions, how many (microblock hash -> count); null when none');
  });
  await bytewiseText(knex, 'block_tx_ids');
  // A list of 50 ids is 3.4 kB of hex that compression cannot shrink: by default each would be moved out of line (a
  // TOAST probe and two chunks a row); rows up to a page stay inline (pgbench, the 20-block page: 0.32–0.43 ms against
  // 0.44–0.49 ms).
  await knex.raw('ALTER TABLE block_tx_ids SET (toast_tuple_target = 8160)');
  await knex.raw(`INSERT INTO block_tx_ids (index_block_hash, tx_ids, microblock_tx_counts) ${listsOf('txs')}`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('block_tx_ids');
}
