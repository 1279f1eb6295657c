import type { Knex } from 'knex';
import { refreshPositions, type PositionsTable } from '../position-refresh';

const DELETE_SQL = `DELETE FROM chain_pox_positions WHERE block_height >= $1`;

/**
 * The rows of every contract from height `$1` up, from `pox_events` there (`pox_events_order`, one range per
 * contract), each continuing the row just below `$1` of its contract (primary key).
 */
const INSERT_SQL = `INSERT INTO chain_pox_positions (pox_version, block_height, events_before, event_count)
  SELECT g.pox_version, g.block_height,
         coalesce(base.top, 0) + sum(g.n) OVER (PARTITION BY g.pox_version ORDER BY g.block_height) - g.n, g.n
  FROM unnest('{2,3,4}'::int2[]) AS v (version)
  CROSS JOIN LATERAL (
    SELECT e.pox_version, e.block_height, count(*) AS n FROM pox_events e
    WHERE e.pox_version = v.version AND e.block_height >= $1 GROUP BY e.pox_version, e.block_height
  ) g
  LEFT JOIN LATERAL (
    SELECT p.events_before + p.event_count AS top FROM chain_pox_positions p
    WHERE p.pox_version = g.pox_version AND p.block_height < $1 ORDER BY p.block_height DESC LIMIT 1
  ) base ON true`;

const POX_POSITIONS: PositionsTable = { deleteFrom: DELETE_SQL, insertFrom: INSERT_SQL };

/**
 * Keeps `chain_pox_positions` (migration 082) after `pox_events` took in or gave up the events of `blockHashes`: the
 * rows from the lowest height of those blocks up are computed again (one block's when the chain grows).
 */
export async function refreshPoxPositions(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  await refreshPositions(trx, POX_POSITIONS, blockHashes);
}
