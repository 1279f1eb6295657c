import type { Knex } from 'knex';
import { runPrepared } from '../write-statements';
import { refreshPrincipalEvents } from './principal-events';
import { refreshTxPositions } from './tx-positions';

/**
 * The chain family's read models (migration 051) follow the canonical chain: called with the blocks that just joined
 * it or just left it (their `canonical` flags already set), in the same transaction as the flip.
 * - `chain_tx_counts` moves by the blocks' transactions per type (added or taken away);
 * - `chain_burn_blocks` rows of the burn heights those blocks are in are computed again from the canonical blocks at
 *   those heights (a burn block holds a handful of Stacks blocks, one before Nakamoto), their hashes and times
 *   (migration 098) with the rest, and the dense ordinals are
 *   renumbered from the lowest height touched: the top row or two when the chain grows or a reorg replaces its top;
 *   more only when a block joins below canonical blocks that came first;
 * - `chain_tx_positions` from the lowest height of those blocks up (`refreshTxPositions`);
 * - `principal_events` (migration 088): the blocks' rows added or deleted, each principal renumbered from there.
 */
export async function addCanonicalChainBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  await refresh(trx, blockHashes, 1);
}

/** Undoes `addCanonicalChainBlocks` for blocks leaving the canonical chain. */
export async function removeChainBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  await refresh(trx, blockHashes, -1);
}

const TX_COUNTS_SQL = `INSERT INTO chain_tx_counts (type_id, tx_count)
  SELECT type_id, $2::int * count(*) FROM txs WHERE index_block_hash = ANY($1::text[]) GROUP BY type_id
  ON CONFLICT (type_id) DO UPDATE SET tx_count = chain_tx_counts.tx_count + excluded.tx_count`;

/**
 * The rows of the burn heights of `$1`'s blocks, from the canonical blocks now at those heights (index
 * `blocks_canonical_burn_height`): deleted where none is left, inserted or updated otherwise (a new row's ordinal is
 * set by the renumbering that follows). Returns the lowest height touched.
 */
const BURN_BLOCKS_SQL = `WITH affected AS (
    SELECT DISTINCT burn_block_height AS h FROM blocks WHERE index_block_hash = ANY($1::text[])
  ),
  fresh AS (
    SELECT a.h, s.* FROM affected a
    CROSS JOIN LATERAL (
      SELECT (array_agg(b.burn_block_hash ORDER BY b.block_height DESC))[1] AS burn_block_hash,
             (array_agg(b.burn_block_time ORDER BY b.block_height DESC))[1] AS burn_block_time,
             min(b.block_height) AS first_block_height, max(b.block_height) AS last_block_height,
             coalesce(sum(b.tx_count), 0) AS tx_count, count(*) AS n,
             '[' || string_agg(to_json(b.block_hash)::text, ',' ORDER BY b.block_height DESC) || ']' AS stacks_blocks,
             (array_agg(coalesce(nullif(b.block_time, 0), b.burn_block_time) ORDER BY b.block_height))[1] AS first_time,
             (array_agg(coalesce(nullif(b.block_time, 0), b.burn_block_time) ORDER BY b.block_height DESC))[1] AS last_time
      FROM blocks b WHERE b.canonical AND b.burn_block_height = a.h
    ) s
  ),
  deleted AS (
    DELETE FROM chain_burn_blocks c USING fresh f WHERE c.burn_block_height = f.h AND f.n = 0 RETURNING 1
  ),
  upserted AS (
    INSERT INTO chain_burn_blocks (burn_block_height, burn_block_hash, burn_block_time, first_block_height,
                                   last_block_height, tx_count, ordinal, stacks_blocks, block_count, first_time, last_time)
    SELECT f.h, f.burn_block_hash, f.burn_block_time, f.first_block_height, f.last_block_height, f.tx_count, 0,
           f.stacks_blocks, f.n, f.first_time, f.last_time
    FROM fresh f WHERE f.n > 0
    ON CONFLICT (burn_block_height) DO UPDATE SET burn_block_hash = excluded.burn_block_hash,
      burn_block_time = excluded.burn_block_time, first_block_height = excluded.first_block_height,
      last_block_height = excluded.last_block_height, tx_count = excluded.tx_count,
      stacks_blocks = excluded.stacks_blocks, block_count = excluded.block_count, first_time = excluded.first_time,
      last_time = excluded.last_time
    RETURNING 1
  )
  SELECT (SELECT min(h) FROM affected) AS low, (SELECT count(*) FROM deleted) AS deleted,
         (SELECT count(*) FROM upserted) AS upserted`;

/**
 * Dense ordinals from `$1` up, continuing the ordinal of the row just below (ordinals below `$1` are already dense):
 * reads only the rows from `$1` up.
 */
const RENUMBER_SQL = `UPDATE chain_burn_blocks c SET ordinal = r.n
  FROM (
    SELECT burn_block_height,
           coalesce((SELECT ordinal FROM chain_burn_blocks WHERE burn_block_height < $1 ORDER BY burn_block_height DESC LIMIT 1), 0)
             + row_number() OVER (ORDER BY burn_block_height) AS n
    FROM chain_burn_blocks WHERE burn_block_height >= $1
  ) r
  WHERE c.burn_block_height = r.burn_block_height AND c.ordinal <> r.n`;

async function refresh(trx: Knex.Transaction, blockHashes: readonly string[], sign: 1 | -1): Promise<void> {
  if (blockHashes.length === 0) return;
  const hashes = [...blockHashes];
  await runPrepared(trx, TX_COUNTS_SQL, [hashes, sign]);
  const [row] = await runPrepared<{ low: number | null }>(trx, BURN_BLOCKS_SQL, [hashes]);
  if (row?.low != null) await runPrepared(trx, RENUMBER_SQL, [row.low]);
  await refreshTxPositions(trx, hashes);
  await refreshPrincipalEvents(trx, hashes, sign);
}
