import type { Knex } from 'knex';
import type { NodeBurnBlock } from './node-payloads';
import { arrayLiteral, arrayParameter, WriteBatch } from '../write-statements';
import { PG_TYPE } from '../binary-array';
import { normalizeHex } from './sanitize';
import { applyBurnchainRewards, refreshBurnchainPositions } from '../chain';

/**
 * A burn block's writes in one statement with a fixed text (one prepared statement serves every burn block; the lists
 * go as array parameters):
 * - a new hash at a height takes the canonical flag from the block there, unless this hash is known already;
 * - the block, its reward recipients and its reward slot holders are inserted, ignoring rows already there, so a
 *   repeat changes nothing.
 *
 * The block's insert must come after the demotion: `burn_blocks_canonical_height` allows one canonical block a height,
 * and it is checked row by row. Data-modifying CTEs run in no given order, so the insert reads the demotion's result
 * (`count(*)` consumes all of it) before it makes its row. The rewards and slot holders touch other tables and need
 * no order.
 */
const APPLY_BURN_BLOCK_SQL = `WITH demoted AS (
       UPDATE burn_blocks SET canonical = false
       WHERE burn_block_height = $2::integer AND canonical AND burn_block_hash <> $1::text
         AND NOT EXISTS (SELECT 1 FROM burn_blocks WHERE burn_block_hash = $1::text)
       RETURNING 1
     ),
     block AS (
       INSERT INTO burn_blocks (burn_block_hash, burn_block_height, parent_burn_block_hash, consensus_hash, burn_amount, canonical)
       SELECT $1::text, $2::integer, $3::text, $4::text, $5::numeric, true FROM (SELECT count(*) FROM demoted) AS after_demotion
       ON CONFLICT (burn_block_hash) DO NOTHING
     ),
     rewards AS (
       INSERT INTO burn_block_rewards (burn_block_hash, reward_index, burn_block_height, recipient, amount)
       SELECT $1::text, r.n - 1, $2::integer, r.recipient, r.amount
       FROM unnest($6::text[], $7::numeric[]) WITH ORDINALITY AS r (recipient, amount, n)
       ON CONFLICT (burn_block_hash, reward_index) DO NOTHING
     ),
     slots AS (
       INSERT INTO burn_block_slot_holders (burn_block_hash, slot_index, burn_block_height, address)
       SELECT $1::text, s.n - 1, $2::integer, s.address FROM unnest($8::text[]) WITH ORDINALITY AS s (address, n)
       ON CONFLICT (burn_block_hash, slot_index) DO NOTHING
     )
     SELECT 1`;

/** Stores a burnchain block; the newest block seen at a height is the canonical one there. */
export async function applyBurnBlock(trx: Knex.Transaction, b: NodeBurnBlock): Promise<void> {
  const rewards = b.reward_recipients ?? [];
  // The burnchain read models (issue 24) read the state before this block's insert.
  await applyBurnchainRewards(trx, {
    burnBlockHash: normalizeHex(b.burn_block_hash),
    burnBlockHeight: b.burn_block_height,
    recipients: rewards.map((r) => r.recipient),
    amounts: rewards.map((r) => String(r.amt)),
    slotHolders: b.reward_slot_holders ?? [],
  });
  // Through a WriteBatch: the next record is prepared while this statement runs (see RecordApplier).
  const writes = new WriteBatch(trx);
  await writes.add({
    sql: APPLY_BURN_BLOCK_SQL,
    bindings: [
      normalizeHex(b.burn_block_hash),
      b.burn_block_height,
      b.parent_burn_block_hash ? normalizeHex(b.parent_burn_block_hash) : null,
      b.consensus_hash ? normalizeHex(b.consensus_hash) : null,
      String(b.burn_amount ?? 0),
      arrayParameter(
        rewards.map((r) => r.recipient),
        PG_TYPE.text,
      ),
      arrayLiteral(rewards.map((r) => String(r.amt))),
      arrayParameter(b.reward_slot_holders ?? [], PG_TYPE.text),
    ],
  });
  await writes.flush();
  // The deep-page positions of the burnchain lists (migration 081) read the rows just written.
  await refreshBurnchainPositions(trx, b.burn_block_height);
}
