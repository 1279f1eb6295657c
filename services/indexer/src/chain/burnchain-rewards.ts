import type { Knex } from 'knex';
import { runPrepared } from '../write-statements';

/** What a `/new_burn_block` brings that the burnchain read models follow (hashes normalized by the caller). */
interface BurnchainRewardsChange {
  burnBlockHash: string;
  burnBlockHeight: number;
  /** Reward recipients (Bitcoin addresses) and their satoshis (decimal strings), in the payload's order. */
  recipients: readonly string[];
  amounts: readonly string[];
  slotHolders: readonly string[];
}

/**
 * The burnchain read models of migration 060 for a burn block about to be stored, run before its own insert (it reads
 * the state before it): the block takes the canonical flag at its height unless its hash is known already (a repeat
 * changes nothing), as `applyBurnBlock` decides. So when the hash is new:
 * - the rewards and slot holders of the block canonical at that height until now (if any) leave the canonical rows,
 *   and their slots and satoshis leave `chain_burnchain_totals`;
 * - the new block's slots and satoshis join the totals (its rows are inserted canonical by `applyBurnBlock`).
 * One statement; the totals move by per-address sums (a `''` row for every address together).
 */
const BURNCHAIN_REWARDS_SQL = `WITH fresh AS (
    SELECT NOT EXISTS (SELECT 1 FROM burn_blocks WHERE burn_block_hash = $1::text) AS is_new
  ),
  old AS (
    SELECT b.burn_block_hash FROM burn_blocks b, fresh
    WHERE fresh.is_new AND b.burn_block_height = $2::integer AND b.canonical AND b.burn_block_hash <> $1::text
  ),
  old_rewards AS (
    UPDATE burn_block_rewards r SET canonical = false FROM old
    WHERE r.burn_block_hash = old.burn_block_hash AND r.canonical
    RETURNING r.recipient, r.amount
  ),
  old_slots AS (
    UPDATE burn_block_slot_holders s SET canonical = false FROM old
    WHERE s.burn_block_hash = old.burn_block_hash AND s.canonical
    RETURNING s.address
  ),
  deltas AS (
    SELECT recipient AS address, 0::bigint AS slots, -amount AS amount FROM old_rewards
    UNION ALL SELECT address, -1, 0 FROM old_slots
    UNION ALL SELECT r.recipient, 0, r.amount
      FROM unnest($3::text[], $4::numeric[]) AS r (recipient, amount), fresh WHERE fresh.is_new
    UNION ALL SELECT s.address, 1, 0 FROM unnest($5::text[]) AS s (address), fresh WHERE fresh.is_new
  ),
  per_address AS (
    SELECT address, sum(slots) AS slots, sum(amount) AS amount FROM deltas WHERE address <> '' GROUP BY address
    UNION ALL SELECT '', sum(slots), sum(amount) FROM deltas HAVING count(*) > 0
  )
  INSERT INTO chain_burnchain_totals (address, slot_count, reward_amount)
  SELECT address, slots, amount FROM per_address
  ON CONFLICT (address) DO UPDATE SET slot_count = chain_burnchain_totals.slot_count + excluded.slot_count,
    reward_amount = chain_burnchain_totals.reward_amount + excluded.reward_amount`;

/** Moves the burnchain reward read models for a burn block about to be stored (see `BURNCHAIN_REWARDS_SQL`). */
export async function applyBurnchainRewards(trx: Knex.Transaction, change: BurnchainRewardsChange): Promise<void> {
  await runPrepared(trx, BURNCHAIN_REWARDS_SQL, [
    change.burnBlockHash,
    change.burnBlockHeight,
    [...change.recipients],
    [...change.amounts],
    [...change.slotHolders],
  ]);
}
