import { z } from 'zod';

/**
 * Shapes of what a Stacks node POSTs (reference/node-events.md). Only what the indexer relies on is
 * checked; unknown fields pass through untouched (the raw body is what goes on the bus).
 */
const hex = z.string().regex(/^(0x)?[0-9a-fA-F]*$/, 'expected a hex string');
const uint = z.number().int().nonnegative();
const amount = z.union([z.string().regex(/^\d+$/, 'expected a decimal string'), uint]);

const executionCost = z
  .object({ read_count: uint, read_length: uint, runtime: uint, write_count: uint, write_length: uint })
  .passthrough();

const transaction = z
  .object({
    txid: hex,
    raw_tx: hex,
    raw_result: hex.optional(),
    status: z.string(),
    tx_index: uint,
    execution_cost: executionCost.optional(),
    microblock_hash: hex.nullish(),
    microblock_sequence: uint.nullish(),
    microblock_parent_hash: hex.nullish(),
  })
  .passthrough();

const event = z
  .object({
    txid: hex,
    event_index: uint,
    committed: z.boolean().optional(),
    type: z.string(),
  })
  .passthrough();

const minerReward = z
  .object({
    recipient: z.string(),
    coinbase_amount: amount,
    tx_fees_anchored: amount,
    tx_fees_streamed_confirmed: amount,
    tx_fees_streamed_produced: amount,
  })
  .passthrough();

export const newBlockSchema = z
  .object({
    block_hash: hex,
    index_block_hash: hex,
    parent_block_hash: hex,
    parent_index_block_hash: hex,
    parent_microblock: hex,
    parent_microblock_sequence: uint,
    burn_block_hash: hex,
    burn_block_height: uint,
    burn_block_time: uint,
    block_height: uint,
    miner_txid: hex.optional(),
    block_time: uint.nullish(),
    transactions: z.array(transaction),
    events: z.array(event),
    matured_miner_rewards: z.array(minerReward).optional(),
  })
  .passthrough();

export const newBurnBlockSchema = z
  .object({
    burn_block_hash: hex,
    burn_block_height: uint,
    burn_amount: amount.optional(),
    reward_recipients: z.array(z.object({ recipient: z.string(), amt: amount }).passthrough()).optional(),
    reward_slot_holders: z.array(z.string()).optional(),
  })
  .passthrough();

export const newMempoolTxSchema = z.array(hex);

export const dropMempoolTxSchema = z
  .object({ dropped_txids: z.array(hex), reason: z.string().optional(), new_txid: hex.nullish() })
  .passthrough();

export const newMicroblocksSchema = z
  .object({
    parent_index_block_hash: hex,
    burn_block_hash: hex.optional(),
    burn_block_height: uint.optional(),
    burn_block_timestamp: uint.optional(),
    transactions: z.array(transaction),
    events: z.array(event),
  })
  .passthrough();

export const attachmentsSchema = z.array(
  z
    .object({
      attachment_index: uint,
      index_block_hash: hex,
      block_height: z.union([uint, z.string().regex(/^\d+$/)]),
      content_hash: hex,
      contract_id: z.string(),
      metadata: hex,
      tx_id: hex,
      content: hex,
    })
    .passthrough(),
);

export const newBitcoinBlockSchema = z
  .object({
    block_height: uint,
    raw_block: z
      .string()
      .regex(/^[0-9a-fA-F]+$/, 'expected the serialized block as hex')
      .refine((s) => s.length % 2 === 0, 'odd hex length'),
  })
  .passthrough();

/** Known node paths and the schema of each. Other paths are accepted and stored raw. */
export const NODE_EVENT_SCHEMAS: Record<string, z.ZodTypeAny> = {
  '/new_block': newBlockSchema,
  '/new_burn_block': newBurnBlockSchema,
  '/new_mempool_tx': newMempoolTxSchema,
  '/drop_mempool_tx': dropMempoolTxSchema,
  '/new_microblocks': newMicroblocksSchema,
  '/attachments/new': attachmentsSchema,
  '/stackerdb_chunks': z.unknown(),
  '/proposal_response': z.unknown(),
};

/** Renders zod issues as one readable line naming each field. */
export function describeIssues(error: z.ZodError, max = 5): string {
  const parts = error.issues.slice(0, max).map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`);
  const more = error.issues.length > max ? ` (and ${error.issues.length - max} more)` : '';
  return parts.join('; ') + more;
}
