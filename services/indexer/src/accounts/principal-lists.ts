import type { Knex } from 'knex';
import { PRINCIPAL_LIST_TABLES, principalListAddSql, principalListRemoveSql } from '@bda/db';
import { runPrepared } from '../write-statements';

/**
 * The numbered v1 address lists (migration 076: `principal_transfer_txs`, `principal_asset_events`,
 * `principal_stx_inbound`) of a block joining the canonical chain, from its stored transactions and events: one
 * statement per table, the rows numbered after the principal's newest row below the block.
 */
const ADD_BLOCK_SQL = PRINCIPAL_LIST_TABLES.map((table) => principalListAddSql(table));

/** Deletes the rows of blocks leaving the canonical chain and renumbers any rows above them. */
const REMOVE_BLOCKS_SQL = PRINCIPAL_LIST_TABLES.map((table) => principalListRemoveSql(table));

/** Blocks are added one at a time, lowest first (each block's numbers build on the rows below it). */
export async function addListBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<void> {
  for (const sql of ADD_BLOCK_SQL) await runPrepared(trx, sql, [indexBlockHash]);
}

export async function removeListBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  for (const sql of REMOVE_BLOCKS_SQL) await runPrepared(trx, sql, [blockHashes]);
}
