import type { Knex } from 'knex';
import { runPrepared } from '../write-statements';
import { EFFECTIVE_EVENTS_SQL } from './effective-events';

/**
 * What block `$1` changes in the liquid STX supply (migration 071), as the reference API counts it: its effective STX
 * mints and burns, and the coinbase of the matured miner rewards it pays (their fee shares only move STX that exists).
 */
const SUPPLY_DELTA_CTE = `ev AS (${EFFECTIVE_EVENTS_SQL}),
     delta AS (
       SELECT coalesce((SELECT sum(amount) FROM ev WHERE type = 'stx_mint_event'), 0) AS minted,
              coalesce((SELECT sum(amount) FROM ev WHERE type = 'stx_burn_event'), 0) AS burned,
              coalesce((SELECT sum(coinbase_amount) FROM miner_rewards WHERE index_block_hash = $1), 0) AS coinbase
     ),
     moved AS (SELECT * FROM delta WHERE minted <> 0 OR burned <> 0 OR coinbase <> 0)`;

/**
 * Adds block `$1` at height `$2` (as `stx-balances.ts` does for a principal): a row with the newest row below plus the
 * block's change, and the same change added to the rows above (only when the block fills a gap under canonical
 * blocks that came first). No row when it changes nothing.
 */
const ADD_SUPPLY_BLOCK_SQL = `WITH ${SUPPLY_DELTA_CTE},
     inserted AS (
       INSERT INTO stx_supply_changes (block_height, index_block_hash, total_minted, total_burned, total_coinbase, supply)
       SELECT $2, $1, coalesce(p.total_minted, 0) + d.minted, coalesce(p.total_burned, 0) + d.burned,
              coalesce(p.total_coinbase, 0) + d.coinbase, coalesce(p.supply, 0) + d.minted - d.burned + d.coinbase
       FROM moved d
       LEFT JOIN LATERAL (
         SELECT * FROM stx_supply_changes c WHERE c.block_height < $2 ORDER BY c.block_height DESC LIMIT 1
       ) p ON true
       RETURNING 1
     ),
     shifted AS (
       UPDATE stx_supply_changes c SET total_minted = c.total_minted + d.minted, total_burned = c.total_burned + d.burned,
              total_coinbase = c.total_coinbase + d.coinbase, supply = c.supply + d.minted - d.burned + d.coinbase
       FROM moved d WHERE c.block_height > $2
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM shifted) AS shifted`;

/** Removes block `$1`'s row and takes its change (row minus the newest row below) off the rows above. */
const REMOVE_SUPPLY_BLOCK_SQL = `WITH gone AS (
       DELETE FROM stx_supply_changes WHERE index_block_hash = $1 RETURNING *
     ),
     delta AS (
       SELECT g.block_height, g.total_minted - coalesce(p.total_minted, 0) AS minted,
              g.total_burned - coalesce(p.total_burned, 0) AS burned, g.total_coinbase - coalesce(p.total_coinbase, 0) AS coinbase
       FROM gone g
       LEFT JOIN LATERAL (
         SELECT * FROM stx_supply_changes c WHERE c.block_height < g.block_height ORDER BY c.block_height DESC LIMIT 1
       ) p ON true
     ),
     shifted AS (
       UPDATE stx_supply_changes c SET total_minted = c.total_minted - d.minted, total_burned = c.total_burned - d.burned,
              total_coinbase = c.total_coinbase - d.coinbase, supply = c.supply - d.minted + d.burned - d.coinbase
       FROM delta d WHERE c.block_height > d.block_height
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM delta) AS removed, (SELECT count(*) FROM shifted) AS shifted`;

export async function addSupplyBlock(trx: Knex.Transaction, indexBlockHash: string, height: number): Promise<void> {
  await runPrepared(trx, ADD_SUPPLY_BLOCK_SQL, [indexBlockHash, height]);
}

export async function removeSupplyBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<void> {
  await runPrepared(trx, REMOVE_SUPPLY_BLOCK_SQL, [indexBlockHash]);
}
