import type { Knex } from 'knex';
import { ANCHORED_SEQUENCE, toTransactionSummaryResponse, type DbTxSummaryFields } from './v3-transaction-summary';

/**
 * `tx_summary_json` (migration 108, ADR 0042): each mined transaction's reference API v3 `TransactionSummary` as the
 * JSON text `JSON.stringify(toTransactionSummaryResponse(row))` writes for its `txs` row, keyed by its block and its
 * place in it (`seq`: the microblock sequence, `ANCHORED_SEQUENCE` for an anchored transaction; `tx_index`), so that
 * `/extended/v3/blocks/{height_or_hash}/transactions` pages an index range of one block's texts.
 *
 * Every input is the `txs` row's own columns (no block row, no ABI, not `canonical`), and a `txs` row is written once
 * with its block and never updated but for `canonical`: the text is written once per row, canonical or not, and a
 * reorg has nothing to undo in it (the api reads the rows of a canonical block only). Written by the indexer with the
 * block's rows (`applyNewBlock`) and by the migration for the rows already indexed.
 */

/** The `txs` columns of a summary, as the v3 block page selected them before (no `sponsored`: a sponsor address is). */
const SUMMARY_COLUMNS = `t.tx_id, t.sender_address, t.nonce, t.sponsor_address, t.sponsor_nonce, t.fee_rate, t.block_height,
  t.block_hash, t.index_block_hash, t.block_time, t.burn_block_time, t.burn_block_height, t.tx_index,
  coalesce(t.microblock_sequence, ${ANCHORED_SEQUENCE}) AS seq, t.status, t.type_id, t.payload`;

/** Renders and upserts the summaries of every `txs` row of `blocks` (index block hashes); one read, one write. */
export async function keepTxSummaryJson(knex: Knex, blocks: readonly string[]): Promise<void> {
  if (blocks.length === 0) return;
  const { rows } = (await knex.raw(`SELECT ${SUMMARY_COLUMNS} FROM txs t WHERE t.index_block_hash = ANY(?::text[])`, [
    [...blocks],
  ])) as { rows: Array<DbTxSummaryFields & { seq: number }> };
  if (rows.length === 0) return;
  await knex.raw(
    `INSERT INTO tx_summary_json (index_block_hash, seq, tx_index, tx_id, summary_json)
     SELECT * FROM unnest(?::text[], ?::int[], ?::int[], ?::text[], ?::text[])
     ON CONFLICT (index_block_hash, seq, tx_index, tx_id) DO UPDATE SET summary_json = excluded.summary_json`,
    [
      rows.map((r) => r.index_block_hash),
      rows.map((r) => r.seq),
      rows.map((r) => r.tx_index),
      rows.map((r) => r.tx_id),
      rows.map((r) => JSON.stringify(toTransactionSummaryResponse(r))),
    ],
  );
}
