import type { Knex } from 'knex';
import { runPrepared } from '../write-statements';

const DELETE_SQL = `DELETE FROM chain_burnchain_positions WHERE burn_block_height >= $1`;

/**
 * The rows of both lists from burn height `$1` up, from the canonical rewards and slot holders there (indexes
 * `burn_block_rewards_canonical_order`, `burn_block_slot_holders_canonical_order`), each continuing the row just below
 * `$1` of its list (primary key).
 */
const INSERT_SQL = `INSERT INTO chain_burnchain_positions (list, burn_block_height, rows_before, row_count)
  SELECT g.list, g.h, coalesce(base.top, 0) + sum(g.n) OVER (PARTITION BY g.list ORDER BY g.h) - g.n, g.n
  FROM (
    SELECT 'rewards' AS list, burn_block_height AS h, count(*) AS n FROM burn_block_rewards
    WHERE canonical AND burn_block_height >= $1 GROUP BY burn_block_height
    UNION ALL
    SELECT 'slots', burn_block_height, count(*) FROM burn_block_slot_holders
    WHERE canonical AND burn_block_height >= $1 GROUP BY burn_block_height
  ) g
  LEFT JOIN LATERAL (
    SELECT p.rows_before + p.row_count AS top FROM chain_burnchain_positions p
    WHERE p.list = g.list AND p.burn_block_height < $1 ORDER BY p.burn_block_height DESC LIMIT 1
  ) base ON true`;

/**
 * Keeps `chain_burnchain_positions` (migration 081) after a burn block at `height` was stored (its rows canonical, or
 * a block it replaced no longer): the rows from that height up are computed again — one per list when the burnchain
 * grows, every height above when a block replaces one below the top (a deep burnchain fork, rare).
 */
export async function refreshBurnchainPositions(trx: Knex.Transaction, height: number): Promise<void> {
  await runPrepared(trx, DELETE_SQL, [height]);
  await runPrepared(trx, INSERT_SQL, [height]);
}
