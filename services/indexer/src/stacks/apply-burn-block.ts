import type { Knex } from 'knex';
import type { NodeBurnBlock } from './node-payloads';
import { WriteBatch } from '../sql';
import { normalizeHex } from './sanitize';

/** Stores a burnchain block; the newest block seen at a height is the canonical one there. */
export async function applyBurnBlock(trx: Knex.Transaction, b: NodeBurnBlock): Promise<void> {
  const hash = normalizeHex(b.burn_block_hash);
  // One statement: none of these writes reads another's rows. A new hash at a height replaces the canonical one
  // there; a repeat of a known block changes nothing (every insert ignores rows it already has).
  const writes = new WriteBatch(trx);
  await writes.add(
    trx.raw(
      `UPDATE burn_blocks SET canonical = false
     WHERE burn_block_height = :height AND canonical AND burn_block_hash <> :hash
       AND NOT EXISTS (SELECT 1 FROM burn_blocks WHERE burn_block_hash = :hash)`,
      { height: b.burn_block_height, hash },
    ),
  );
  await writes.add(
    trx('burn_blocks')
      .insert({
        burn_block_hash: hash,
        burn_block_height: b.burn_block_height,
        parent_burn_block_hash: b.parent_burn_block_hash ? normalizeHex(b.parent_burn_block_hash) : null,
        consensus_hash: b.consensus_hash ? normalizeHex(b.consensus_hash) : null,
        burn_amount: String(b.burn_amount ?? 0),
        canonical: true,
      })
      .onConflict('burn_block_hash')
      .ignore(),
  );
  const rewards = (b.reward_recipients ?? []).map((r, i) => ({
    burn_block_hash: hash,
    reward_index: i,
    burn_block_height: b.burn_block_height,
    recipient: r.recipient,
    amount: String(r.amt),
  }));
  if (rewards.length)
    await writes.add(trx('burn_block_rewards').insert(rewards).onConflict(['burn_block_hash', 'reward_index']).ignore());
  const slots = (b.reward_slot_holders ?? []).map((address, i) => ({
    burn_block_hash: hash,
    slot_index: i,
    burn_block_height: b.burn_block_height,
    address,
  }));
  if (slots.length)
    await writes.add(trx('burn_block_slot_holders').insert(slots).onConflict(['burn_block_hash', 'slot_index']).ignore());
  await writes.flush();
}
