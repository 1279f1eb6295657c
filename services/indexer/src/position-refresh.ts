import type { Knex } from 'knex';
import { runPrepared } from './write-statements';

/** The lowest height of `$1`'s blocks. */
const LOW_SQL = `SELECT min(block_height) AS low FROM blocks WHERE index_block_hash = ANY($1::text[])`;

/**
 * A positions read model kept by height (`chain_tx_positions`, `chain_pox_positions`…): each row says where a block's
 * entries start in a list, so that a page at any offset is one index lookup.
 */
export interface PositionsTable {
  /** Deletes the rows from height `$1` up. */
  deleteFrom: string;
  /** Inserts the rows from height `$1` up again, each continuing the row just below `$1` of its list. */
  insertFrom: string;
}

/**
 * Computes a positions table again from the lowest height of `blockHashes` up, in the caller's transaction: one
 * block's rows when the chain grows, the replaced top on a reorg, everything above a block that joins below blocks
 * that came first (rare).
 */
export async function refreshPositions(
  trx: Knex.Transaction,
  table: PositionsTable,
  blockHashes: readonly string[],
): Promise<void> {
  if (blockHashes.length === 0) return;
  const [row] = await runPrepared<{ low: number | null }>(trx, LOW_SQL, [[...blockHashes]]);
  if (row?.low == null) return;
  await runPrepared(trx, table.deleteFrom, [row.low]);
  await runPrepared(trx, table.insertFrom, [row.low]);
}
