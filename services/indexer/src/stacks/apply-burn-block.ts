import type { Knex } from 'knex';
import type { NodeBurnBlock } from './node-payloads';
import { normalizeHex } from './sanitize';

/** Stores a burnchain block; the newest block seen at a height is the canonical one there. */
export async function applyBurnBlock(trx: Knex.Transaction, b: NodeBurnBlock): Promise<void> {
  const hash = normalizeHex(b.burn_block_hash);
  if (await trx('burn_blocks').where({ burn_block_hash: hash }).first('burn_block_hash')) return;
  await trx('burn_blocks').where({ burn_block_height: b.burn_block_height, canonical: true }).update({ canonical: false });
  await trx('burn_blocks').insert({
    burn_block_hash: hash,
    burn_block_height: b.burn_block_height,
    parent_burn_block_hash: b.parent_burn_block_hash ? normalizeHex(b.parent_burn_block_hash) : null,
    consensus_hash: b.consensus_hash ? normalizeHex(b.consensus_hash) : null,
    burn_amount: String(b.burn_amount ?? 0),
    canonical: true,
  });
  const rewards = (b.reward_recipients ?? []).map((r, i) => ({
    burn_block_hash: hash,
    reward_index: i,
    burn_block_height: b.burn_block_height,
    recipient: r.recipient,
    amount: String(r.amt),
  }));
  if (rewards.length) await trx('burn_block_rewards').insert(rewards).onConflict(['burn_block_hash', 'reward_index']).ignore();
  const slots = (b.reward_slot_holders ?? []).map((address, i) => ({
    burn_block_hash: hash,
    slot_index: i,
    burn_block_height: b.burn_block_height,
    address,
  }));
  if (slots.length) await trx('burn_block_slot_holders').insert(slots).onConflict(['burn_block_hash', 'slot_index']).ignore();
}
