import type { NodeRewardSet } from '../pox';

/** The parts of the node's payloads the indexer reads (reference/node-events.md). Amounts are strings. */

interface NodeExecutionCost {
  read_count: number;
  read_length: number;
  runtime: number;
  write_count: number;
  write_length: number;
}

export interface NodeTx {
  txid: string;
  raw_tx: string;
  raw_result: string;
  status: string;
  tx_index: number;
  contract_interface?: unknown;
  contract_abi?: unknown;
  execution_cost?: NodeExecutionCost;
  microblock_hash?: string | null;
  microblock_sequence?: number | null;
  microblock_parent_hash?: string | null;
  vm_error?: string | null;
  burnchain_op?: Record<string, unknown> | null;
}

export interface NodeEvent {
  txid: string;
  event_index: number;
  committed?: boolean;
  type: string;
  [body: string]: unknown;
}

interface NodeMinerReward {
  from_index_consensus_hash: string;
  from_stacks_block_hash: string;
  recipient: string;
  miner_address?: string | null;
  coinbase_amount: string;
  tx_fees_anchored: string;
  tx_fees_streamed_confirmed: string;
  tx_fees_streamed_produced: string;
}

export interface NodeBlock {
  block_hash: string;
  index_block_hash: string;
  parent_block_hash: string;
  parent_index_block_hash: string;
  parent_microblock: string;
  parent_microblock_sequence: number;
  miner_txid?: string;
  burn_block_hash: string;
  burn_block_height: number;
  burn_block_time: number;
  block_height: number;
  block_time?: number | null;
  tenure_height?: number | null;
  cycle_number?: number | null;
  pox_v1_unlock_height?: number | null;
  pox_v2_unlock_height?: number | null;
  pox_v3_unlock_height?: number | null;
  signer_bitvec?: string | null;
  signer_signature?: string[] | null;
  /** The reward set of `cycle_number`, on the block that fixes it (Nakamoto era; read by `../pox`). */
  reward_set?: NodeRewardSet | null;
  transactions: NodeTx[];
  events: NodeEvent[];
  matured_miner_rewards?: NodeMinerReward[];
}

export interface NodeBurnBlock {
  burn_block_hash: string;
  burn_block_height: number;
  burn_amount?: string | number;
  consensus_hash?: string;
  parent_burn_block_hash?: string;
  reward_recipients?: Array<{ recipient: string; amt: string | number }>;
  reward_slot_holders?: string[];
}

export interface NodeMicroblocks {
  parent_index_block_hash: string;
  burn_block_hash?: string;
  burn_block_height?: number;
  burn_block_timestamp?: number;
  transactions: NodeTx[];
  events: NodeEvent[];
}

export interface NodeDropMempoolTx {
  dropped_txids: string[];
  reason?: string;
  new_txid?: string | null;
}

export interface NodeAttachment {
  attachment_index: number;
  index_block_hash: string;
  block_height: number | string;
  content_hash: string;
  contract_id: string;
  metadata: string;
  tx_id: string;
  content: string;
}
