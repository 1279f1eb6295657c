import type { Knex } from 'knex';
import { numberedListNumberSql, principalActivityInsertSql, principalListRemoveSql, PRINCIPAL_TXS_LIST } from '@bda/db';
import { runPrepared } from '../write-statements';

/**
 * The per-transaction activity rows of a block joining the canonical chain (migration 070: `principal_txs`,
 * `principal_tx_balance_changes`, `principal_tx_counts`), from its stored transactions and events: the same statement
 * the migration fills them with, for one block (`$1`); then its `principal_txs` rows numbered (migration 077's `seq`,
 * after the principal's newest row below the block, the rows above moved up when the block fills a gap).
 */
const ADD_BLOCK_SQL = principalActivityInsertSql('t.index_block_hash = $1', 'e.index_block_hash = $1');
const NUMBER_BLOCK_SQL = numberedListNumberSql(PRINCIPAL_TXS_LIST);

/**
 * Takes the rows of blocks leaving the canonical chain off the principals' counts and deletes their balance changes;
 * then `REMOVE_TXS_SQL` deletes their `principal_txs` rows and renumbers any rows above them.
 */
const REMOVE_BLOCKS_SQL = `WITH gone_changes AS (
       DELETE FROM principal_tx_balance_changes WHERE index_block_hash = ANY($1::text[]) RETURNING 1
     ),
     counted AS (
       UPDATE principal_tx_counts c SET tx_count = c.tx_count - g.n
       FROM (SELECT principal, count(*) AS n FROM principal_txs WHERE index_block_hash = ANY($1::text[]) GROUP BY principal) g
       WHERE c.principal = g.principal
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM gone_changes) AS changes, (SELECT count(*) FROM counted) AS principals`;
const REMOVE_TXS_SQL = principalListRemoveSql(PRINCIPAL_TXS_LIST);

export async function addActivityBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<void> {
  await runPrepared(trx, ADD_BLOCK_SQL, [indexBlockHash]);
  await runPrepared(trx, NUMBER_BLOCK_SQL, [indexBlockHash]);
}

export async function removeActivityBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  await runPrepared(trx, REMOVE_BLOCKS_SQL, [blockHashes]);
  await runPrepared(trx, REMOVE_TXS_SQL, [blockHashes]);
}
