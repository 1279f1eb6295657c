import type { Knex } from 'knex';
import { runPrepared } from '../write-statements';
import { EFFECTIVE_EVENTS_SQL } from './effective-events';

/**
 * What one block changes in each principal's STX totals: transfers (sender sends, recipient receives), mints
 * (received), burns (sent), the fee of every transaction of the block whatever its status (paid by the sponsor of a
 * sponsored one), and the matured miner rewards it pays (coinbase and the three fee shares). Locks move nothing: a
 * locked amount stays part of the balance, as in the reference API.
 */
const STX_DELTAS_CTE = `ev AS (${EFFECTIVE_EVENTS_SQL}),
     parts (principal, sent, received, fees, rewards) AS (
       SELECT sender, coalesce(amount, 0), 0, 0, 0 FROM ev
        WHERE type IN ('stx_transfer_event', 'stx_burn_event') AND sender IS NOT NULL
       UNION ALL
       SELECT recipient, 0, coalesce(amount, 0), 0, 0 FROM ev
        WHERE type IN ('stx_transfer_event', 'stx_mint_event') AND recipient IS NOT NULL
       UNION ALL
       SELECT CASE WHEN t.sponsored THEN t.sponsor_address ELSE t.sender_address END, 0, 0, t.fee_rate, 0 FROM txs t
        WHERE t.index_block_hash = $1 AND t.fee_rate > 0
       UNION ALL
       SELECT r.recipient, 0, 0, 0, r.coinbase_amount + r.tx_fees_anchored + r.tx_fees_streamed_confirmed + r.tx_fees_streamed_produced
         FROM miner_rewards r WHERE r.index_block_hash = $1
     ),
     delta AS (
       SELECT principal, sum(sent) AS sent, sum(received) AS received, sum(fees) AS fees, sum(rewards) AS rewards,
              sum(received) - sum(sent) - sum(fees) + sum(rewards) AS balance
       FROM parts WHERE principal IS NOT NULL GROUP BY principal
     )`;

/**
 * Adds block `$1` at height `$2`: a row per principal it touched, its totals the newest row below plus the block's
 * change, and the same change added to that principal's rows above (there are some only when the block fills a gap
 * under canonical blocks that came first).
 */
const ADD_STX_BLOCK_SQL = `WITH ${STX_DELTAS_CTE},
     inserted AS (
       INSERT INTO stx_balance_changes (principal, block_height, index_block_hash, balance, total_sent, total_received,
                                        total_fees_sent, total_miner_rewards_received)
       SELECT d.principal, $2, $1, coalesce(p.balance, 0) + d.balance, coalesce(p.total_sent, 0) + d.sent,
              coalesce(p.total_received, 0) + d.received, coalesce(p.total_fees_sent, 0) + d.fees,
              coalesce(p.total_miner_rewards_received, 0) + d.rewards
       FROM delta d
       LEFT JOIN LATERAL (
         SELECT * FROM stx_balance_changes c WHERE c.principal = d.principal AND c.block_height < $2
         ORDER BY c.block_height DESC LIMIT 1
       ) p ON true
       RETURNING 1
     ),
     shifted AS (
       UPDATE stx_balance_changes c SET balance = c.balance + d.balance, total_sent = c.total_sent + d.sent,
              total_received = c.total_received + d.received, total_fees_sent = c.total_fees_sent + d.fees,
              total_miner_rewards_received = c.total_miner_rewards_received + d.rewards
       FROM delta d WHERE c.principal = d.principal AND c.block_height > $2
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM shifted) AS shifted`;

/** Removes block `$1`'s rows and takes their change (row minus the newest row below) off the rows above. */
const REMOVE_STX_BLOCK_SQL = `WITH gone AS (
       DELETE FROM stx_balance_changes WHERE index_block_hash = $1 RETURNING *
     ),
     delta AS (
       SELECT g.principal, g.block_height, g.balance - coalesce(p.balance, 0) AS balance,
              g.total_sent - coalesce(p.total_sent, 0) AS sent, g.total_received - coalesce(p.total_received, 0) AS received,
              g.total_fees_sent - coalesce(p.total_fees_sent, 0) AS fees,
              g.total_miner_rewards_received - coalesce(p.total_miner_rewards_received, 0) AS rewards
       FROM gone g
       LEFT JOIN LATERAL (
         SELECT * FROM stx_balance_changes c WHERE c.principal = g.principal AND c.block_height < g.block_height
         ORDER BY c.block_height DESC LIMIT 1
       ) p ON true
     ),
     shifted AS (
       UPDATE stx_balance_changes c SET balance = c.balance - d.balance, total_sent = c.total_sent - d.sent,
              total_received = c.total_received - d.received, total_fees_sent = c.total_fees_sent - d.fees,
              total_miner_rewards_received = c.total_miner_rewards_received - d.rewards
       FROM delta d WHERE c.principal = d.principal AND c.block_height > d.block_height
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM delta) AS removed, (SELECT count(*) FROM shifted) AS shifted`;

export async function addStxBlock(trx: Knex.Transaction, indexBlockHash: string, height: number): Promise<void> {
  await runPrepared(trx, ADD_STX_BLOCK_SQL, [indexBlockHash, height]);
}

export async function removeStxBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<void> {
  await runPrepared(trx, REMOVE_STX_BLOCK_SQL, [indexBlockHash]);
}
