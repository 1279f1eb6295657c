import type { TenureChangeCauseName, TxTypeId } from '@bda/stacks-codec';
/**
 * Response shapes of the api, mirroring the JSON Schemas in `schemas/components/schemas/` (the source of truth).
 * The integration tests validate every response against those schemas with ajv, so these types cannot drift from
 * them unnoticed. Field names and types follow the reference Stacks Blockchain API so existing clients keep working.
 */
import type { ErrorResponse } from '@bda/common';
import type { MempoolTxStatusJson } from '@bda/db';

export type { ErrorResponse };

/** `{hex, repr}` of a Clarity value. */
export interface ClarityValueResponse {
  hex: string;
  repr: string;
}

// ---- status ----

export interface ChainTipResponse {
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  /** Present only when a canonical microblock is built on the tip (Stacks 2.x). */
  microblock_hash?: string;
  microblock_sequence?: number;
  burn_block_height: number;
}

export interface ServerStatusResponse {
  server_version: string;
  status: 'ready';
  pox_v1_unlock_height: number | null;
  pox_v2_unlock_height: number | null;
  pox_v3_unlock_height: number | null;
  chain_tip: ChainTipResponse | null;
}

// ---- blocks ----

export interface NakamotoBlockResponse {
  canonical: boolean;
  height: number;
  hash: string;
  block_time: number;
  block_time_iso: string;
  tenure_height: number;
  index_block_hash: string;
  parent_block_hash: string;
  parent_index_block_hash: string;
  burn_block_time: number;
  burn_block_time_iso: string;
  burn_block_hash: string;
  burn_block_height: number;
  miner_txid: string;
  tx_count: number;
  execution_cost_read_count: number;
  execution_cost_read_length: number;
  execution_cost_runtime: number;
  execution_cost_write_count: number;
  execution_cost_write_length: number;
}

export interface PaginatedResponse<T> {
  limit: number;
  offset: number;
  total: number;
  results: T[];
}

/**
 * A page of blocks with the reference API's cursors: `cursor` is the index block hash of the page's first (newest)
 * block; `next_cursor` that of the page `limit` blocks newer (null unless a whole page of newer blocks exists), and
 * `prev_cursor` that of the page `limit` blocks older (null when this page reaches the lowest block).
 */
export interface BlockListResponse extends PaginatedResponse<NakamotoBlockResponse> {
  next_cursor: string | null;
  prev_cursor: string | null;
  cursor: string | null;
}

// ---- post conditions (stored by the indexer already in this shape) ----

export type PostConditionPrincipalResponse =
  | { type_id: 'principal_origin' }
  | { type_id: 'principal_standard'; address: string }
  | { type_id: 'principal_contract'; address: string; contract_name: string };

export interface PostConditionAssetResponse {
  asset_name: string;
  contract_address: string;
  contract_name: string;
}

export type FungibleConditionCode =
  'sent_equal_to' | 'sent_greater_than' | 'sent_greater_than_or_equal_to' | 'sent_less_than' | 'sent_less_than_or_equal_to';

export type PostConditionResponse =
  | { type: 'stx'; principal: PostConditionPrincipalResponse; condition_code: FungibleConditionCode; amount: string }
  | {
      type: 'fungible';
      principal: PostConditionPrincipalResponse;
      condition_code: FungibleConditionCode;
      amount: string;
      asset: PostConditionAssetResponse;
    }
  | {
      type: 'non_fungible';
      principal: PostConditionPrincipalResponse;
      condition_code: 'sent' | 'not_sent' | 'maybe_sent';
      asset_value: ClarityValueResponse;
      asset: PostConditionAssetResponse;
    }
  /** pox-5 post-condition kinds, named as the reference API names them (decodable, not produced by current nodes). */
  | { type: 'staking'; principal: PostConditionPrincipalResponse; condition_code: FungibleConditionCode; amount: string }
  | {
      type: 'pox';
      principal: PostConditionPrincipalResponse;
      condition_code: 'not_performed' | 'maybe_performed' | 'performed';
    };

// ---- events ----

export type AssetEventType = 'transfer' | 'mint' | 'burn';

interface EventBase {
  event_index: number;
  tx_id: string;
}

export interface SmartContractLogEventResponse extends EventBase {
  event_type: 'smart_contract_log';
  contract_log: { contract_id: string; topic: string; value: ClarityValueResponse };
}

export interface StxLockEventResponse extends EventBase {
  event_type: 'stx_lock';
  stx_lock_event: { locked_amount: string; unlock_height: number; locked_address: string };
}

export interface StxAssetEventResponse extends EventBase {
  event_type: 'stx_asset';
  asset: { asset_event_type: AssetEventType; sender: string; recipient: string; amount: string; memo?: string };
}

export interface FungibleTokenAssetEventResponse extends EventBase {
  event_type: 'fungible_token_asset';
  asset: { asset_event_type: AssetEventType; asset_id: string; sender: string; recipient: string; amount: string };
}

export interface NonFungibleTokenAssetEventResponse extends EventBase {
  event_type: 'non_fungible_token_asset';
  asset: {
    asset_event_type: AssetEventType;
    asset_id: string;
    sender: string;
    recipient: string;
    value: ClarityValueResponse;
  };
}

export type TransactionEventResponse =
  | SmartContractLogEventResponse
  | StxLockEventResponse
  | StxAssetEventResponse
  | FungibleTokenAssetEventResponse
  | NonFungibleTokenAssetEventResponse;

// ---- transactions ----

/** The codec's names: one definition of the transaction types and tenure-change causes. */
export type TransactionType = TxTypeId;
export type TenureChangeCause = TenureChangeCauseName;

export interface FunctionArgResponse {
  hex: string;
  repr: string;
  name: string;
  type: string;
}

/** The type-specific part of a transaction (`tx_type` plus one payload object). */
export type TransactionMetadataResponse =
  | {
      tx_type: 'token_transfer';
      token_transfer: { recipient_address: string; amount: string; memo: string };
    }
  | {
      tx_type: 'smart_contract';
      smart_contract: { clarity_version: number | null; contract_id: string; source_code: string };
    }
  | {
      tx_type: 'contract_call';
      contract_call: {
        contract_id: string;
        function_name: string;
        function_signature: string;
        function_args?: FunctionArgResponse[];
      };
    }
  | {
      tx_type: 'poison_microblock';
      poison_microblock: { microblock_header_1: string; microblock_header_2: string };
    }
  | {
      tx_type: 'coinbase';
      coinbase_payload: { data: string; alt_recipient: string | null; vrf_proof: string | null };
    }
  | {
      tx_type: 'tenure_change';
      tenure_change_payload: {
        tenure_consensus_hash: string;
        prev_tenure_consensus_hash: string;
        burn_view_consensus_hash: string;
        previous_tenure_end: string;
        previous_tenure_blocks: number;
        cause: TenureChangeCause;
        pubkey_hash: string;
      };
    };

/** Fields every transaction has, mined or not (what the raw transaction itself says). */
export interface BaseTransactionResponse {
  tx_id: string;
  nonce: number;
  fee_rate: string;
  sender_address: string;
  sponsored: boolean;
  /** Only for sponsored transactions. */
  sponsor_address?: string;
  /** The sponsor's nonce; only for sponsored transactions. */
  sponsor_nonce?: number;
  post_condition_mode: 'allow' | 'deny' | 'originator';
  post_conditions: PostConditionResponse[];
  anchor_mode: 'on_chain_only' | 'off_chain_only' | 'any';
}

export type MinedTxStatus = 'success' | 'abort_by_response' | 'abort_by_post_condition' | 'problematic_skipped';

export interface MinedTransactionFields extends BaseTransactionResponse {
  block_hash: string;
  block_height: number;
  block_time: number;
  block_time_iso: string;
  burn_block_time: number;
  burn_block_time_iso: string;
  burn_block_height: number;
  parent_block_hash: string;
  parent_burn_block_time: number;
  parent_burn_block_time_iso: string;
  canonical: boolean;
  tx_index: number;
  tx_status: MinedTxStatus;
  tx_result: ClarityValueResponse;
  event_count: number;
  is_unanchored: boolean;
  microblock_hash: string;
  microblock_sequence: number;
  microblock_canonical: boolean;
  execution_cost_read_count: number;
  execution_cost_read_length: number;
  execution_cost_runtime: number;
  execution_cost_write_count: number;
  execution_cost_write_length: number;
  vm_error: string | null;
  events: TransactionEventResponse[];
}

export type TransactionResponse = MinedTransactionFields & TransactionMetadataResponse;

/** The mempool statuses the reference API names (one list, in `@bda/db`'s mempool renderer). */
export type MempoolTxStatus = MempoolTxStatusJson;

export interface MempoolTransactionFields extends BaseTransactionResponse {
  tx_status: MempoolTxStatus;
  replaced_by_tx_id: string | null;
  receipt_time: number;
  receipt_time_iso: string;
}

export type MempoolTransactionResponse = MempoolTransactionFields & TransactionMetadataResponse;

export type MempoolTransactionListResponse = PaginatedResponse<MempoolTransactionResponse>;
export type AddressTransactionsListResponse = PaginatedResponse<TransactionResponse>;
