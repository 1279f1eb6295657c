import type { Knex } from 'knex';
import { principalActivityInsertSql } from '@bda/db';
import { runPrepared } from '../write-statements';

/**
 * The per-transaction activity rows of a block joining the canonical chain (migration 070: `principal_txs`,
 * `principal_tx_balance_changes`, `principal_tx_counts`), from its stored transactions and events: the same statement
 * the migration fills them with, for one block (`$1`).
 */
const ADD_BLOCK_SQL = principalActivityInsertSql('t.index_block_hash = $1', 'e.index_block_hash = $1');

/** Deletes the rows of blocks leaving the canonical chain, and takes them off the principals' counts. */
const REMOVE_BLOCKS_SQL = `WITH gone AS (
       DELETE FROM principal_txs WHERE index_block_hash = ANY($1::text[]) RETURNING principal
     ),
     gone_changes AS (
       DELETE FROM principal_tx_balance_changes WHERE index_block_hash = ANY($1::text[]) RETURNING 1
     ),
     counted AS (
       UPDATE principal_tx_counts c SET tx_count = c.tx_count - g.n
       FROM (SELECT principal, count(*) AS n FROM gone GROUP BY principal) g
       WHERE c.principal = g.principal
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM gone_changes) AS changes, (SELECT count(*) FROM counted) AS principals`;

export async function addActivityBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<void> {
  await runPrepared(trx, ADD_BLOCK_SQL, [indexBlockHash]);
}

export async function removeActivityBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  await runPrepared(trx, REMOVE_BLOCKS_SQL, [blockHashes]);
}
