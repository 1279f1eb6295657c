import type { Knex } from 'knex';
import { refreshPositions, type PositionsTable } from '../position-refresh';

const DELETE_SQL = `DELETE FROM chain_tx_positions WHERE block_height >= $1`;

/**
 * The rows of the canonical blocks from height `$1` up (index `txs_canonical_order`), per type and for every type
 * (`''`), each continuing the row just below `$1` of its type (primary key).
 */
const INSERT_SQL = `INSERT INTO chain_tx_positions (type_id, block_height, txs_before, tx_count)
  SELECT g.type_id, g.block_height,
         coalesce(base.top, 0) + sum(g.n) OVER (PARTITION BY g.type_id ORDER BY g.block_height) - g.n, g.n
  FROM (
    SELECT coalesce(t.type_id, '') AS type_id, t.block_height, count(*) AS n
    FROM txs t WHERE t.canonical AND t.block_height >= $1
    GROUP BY GROUPING SETS ((t.block_height, t.type_id), (t.block_height))
  ) g
  LEFT JOIN LATERAL (
    SELECT p.txs_before + p.tx_count AS top FROM chain_tx_positions p
    WHERE p.type_id = g.type_id AND p.block_height < $1 ORDER BY p.block_height DESC LIMIT 1
  ) base ON true`;

const TX_POSITIONS: PositionsTable = { deleteFrom: DELETE_SQL, insertFrom: INSERT_SQL };

/**
 * Keeps `chain_tx_positions` (migration 080) with the canonical chain: called with blocks that just joined or left it
 * (their `canonical` flags already set), in the same transaction. The rows from the lowest height of those blocks up
 * are computed again from the canonical transactions there: one block's rows when the chain grows, the replaced top
 * on a reorg, everything above a block that joins below canonical blocks that came first (rare).
 */
export async function refreshTxPositions(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  await refreshPositions(trx, TX_POSITIONS, blockHashes);
}
