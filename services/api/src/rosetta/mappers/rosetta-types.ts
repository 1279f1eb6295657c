/** Mesh (Rosetta) 1.5.1 shapes the api answers with (`schemas/rosetta/mesh-api-1.5.1.json`). */

export interface BlockIdentifier {
  index: number;
  hash: string;
}

export interface AccountIdentifier {
  address: string;
  sub_account?: { address: string; metadata?: Record<string, unknown> };
  metadata?: Record<string, unknown>;
}

export interface Currency {
  symbol: string;
  decimals: number;
  metadata?: Record<string, unknown>;
}

export interface Amount {
  value: string;
  currency: Currency;
  metadata?: Record<string, unknown>;
}

export interface OperationResponse {
  operation_identifier: { index: number; network_index?: number };
  related_operations?: Array<{ index: number }>;
  type: string;
  status?: string;
  account?: AccountIdentifier;
  amount?: Amount;
  metadata?: Record<string, unknown>;
}

export interface TransactionResponse {
  transaction_identifier: { hash: string };
  operations: OperationResponse[];
  metadata?: Record<string, unknown>;
}

export interface BlockResponse {
  block_identifier: BlockIdentifier;
  parent_block_identifier: BlockIdentifier;
  timestamp: number;
  transactions: TransactionResponse[];
  metadata?: Record<string, unknown>;
}

/** STX in micro-STX: the only currency. */
export const STX: Currency = Object.freeze({ symbol: 'STX', decimals: 6 }) as Currency;

/** The sub-account holding an address's locked (stacked) STX. */
export const STACKED_SUB_ACCOUNT = 'stacked';

export const ROSETTA_BLOCKCHAIN = 'stacks';

export const OPERATION_TYPES = [
  'token_transfer',
  'contract_call',
  'smart_contract',
  'coinbase',
  'poison_microblock',
  'fee',
  'mint',
  'burn',
  'miner_reward',
  'stx_lock',
  'stx_unlock',
  'tenure_change',
] as const;

export type OperationType = (typeof OPERATION_TYPES)[number];

/** On-chain statuses; only `success` operations change balances. */
export const OPERATION_STATUSES = [
  { status: 'success', successful: true },
  { status: 'abort_by_response', successful: false },
  { status: 'abort_by_post_condition', successful: false },
] as const;
