/**
 * Row types of the chain tables. The indexer owns the schema: it alone runs the migrations in
 * ./migrations (they live in this lib so the api's tests can build the same schema). int8 and numeric
 * columns come back as strings (see create-db.ts); amounts stay exact.
 */

export interface DbBlock {
  index_block_hash: string;
  block_hash: string;
  block_height: number;
  parent_index_block_hash: string;
  parent_block_hash: string;
  parent_microblock_hash: string;
  parent_microblock_sequence: number;
  burn_block_hash: string;
  burn_block_height: number;
  burn_block_time: string;
  block_time: string | null;
  miner_txid: string | null;
  tenure_height: number | null;
  cycle_number: number | null;
  signer_bitvec: string | null;
  signer_signature: string[] | null;
  tx_count: number;
  execution_cost_read_count: string;
  execution_cost_read_length: string;
  execution_cost_runtime: string;
  execution_cost_write_count: string;
  execution_cost_write_length: string;
  pox_v1_unlock_height: number | null;
  pox_v2_unlock_height: number | null;
  pox_v3_unlock_height: number | null;
  canonical: boolean;
}

export interface DbChainTip {
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  burn_block_height: number;
  block_count: number;
  microblock_hash: string | null;
  microblock_sequence: number | null;
}

export interface DbBurnBlock {
  burn_block_hash: string;
  burn_block_height: number;
  parent_burn_block_hash: string | null;
  consensus_hash: string | null;
  burn_amount: string;
  canonical: boolean;
}

export interface DbTx {
  tx_id: string;
  index_block_hash: string;
  block_hash: string;
  block_height: number;
  burn_block_time: string;
  block_time: string | null;
  burn_block_height: number;
  parent_index_block_hash: string;
  tx_index: number;
  raw_tx: Buffer;
  type_id: string;
  status: string;
  raw_result: string;
  vm_error: string | null;
  sender_address: string;
  sponsor_address: string | null;
  sponsored: boolean;
  nonce: string;
  /** The sponsor's nonce (int8 as a string); null unless sponsored, and for rows written before migration 023. */
  sponsor_nonce: string | null;
  fee_rate: string;
  anchor_mode: string;
  post_condition_mode: string;
  post_conditions: unknown;
  payload: Record<string, unknown>;
  contract_id: string | null;
  contract_abi: unknown;
  burnchain_op: unknown;
  execution_cost_read_count: string;
  execution_cost_read_length: string;
  execution_cost_runtime: string;
  execution_cost_write_count: string;
  execution_cost_write_length: string;
  microblock_hash: string | null;
  microblock_sequence: number | null;
  microblock_parent_hash: string | null;
  event_count: number;
  canonical: boolean;
}

export interface DbEvent {
  index_block_hash: string;
  event_index: number;
  tx_id: string;
  tx_index: number;
  block_height: number;
  type: string;
  committed: boolean;
  asset_identifier: string | null;
  sender: string | null;
  recipient: string | null;
  amount: string | null;
  memo: string | null;
  value_hex: string | null;
  value_repr: string | null;
  contract_identifier: string | null;
  topic: string | null;
  locked_amount: string | null;
  unlock_height: string | null;
  locked_address: string | null;
  canonical: boolean;
}

export interface DbMempoolTx {
  tx_id: string;
  raw_tx: Buffer;
  type_id: string;
  sender_address: string;
  sponsor_address: string | null;
  nonce: string;
  /** The sponsor's nonce (int8 as a string); null unless sponsored, and for rows written before migration 023. */
  sponsor_nonce: string | null;
  fee_rate: string;
  payload: Record<string, unknown>;
  post_conditions: unknown;
  post_condition_mode: string;
  anchor_mode: string;
  contract_id: string | null;
  status: string;
  replaced_by_tx_id: string | null;
  receipt_time: string;
  /** The canonical tip's height when the node announced it (migration 052); null for rows written before it. */
  receipt_block_height: number | null;
}

export interface DbMinerReward {
  index_block_hash: string;
  reward_index: number;
  block_height: number;
  from_index_block_hash: string;
  recipient: string;
  miner_address: string | null;
  coinbase_amount: string;
  tx_fees_anchored: string;
  tx_fees_streamed_confirmed: string;
  tx_fees_streamed_produced: string;
  canonical: boolean;
}

export interface DbAddressTx {
  address: string;
  block_height: number;
  microblock_sequence: number;
  tx_index: number;
  tx_id: string;
  index_block_hash: string;
}

export interface DbAttachment {
  content_hash: string;
  attachment_index: number;
  tx_id: string;
  index_block_hash: string;
  block_height: number;
  contract_id: string;
  metadata: string;
  content: Buffer;
}
