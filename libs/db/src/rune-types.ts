/**
 * Row types of the rune ledger tables (migrations 011–016). int8 and numeric columns come back as strings (see
 * create-db.ts): amounts are u128 and stay exact.
 */

/** `rune_activity.operation` codes, by index. */
export const RUNE_OPERATIONS = ['etching', 'mint', 'burn', 'send', 'receive'] as const;
export type RuneOperationName = (typeof RUNE_OPERATIONS)[number];

/** The code stored in `rune_activity.operation`. */
export function runeOperationCode(operation: RuneOperationName): number {
  return RUNE_OPERATIONS.indexOf(operation);
}

export interface DbRuneBlock {
  block_height: number;
  block_hash: string;
  prev_hash: string;
  block_time: string;
  tx_count: number;
  activity_count: number;
  etching_count: number;
  mint_count: number;
  burn_count: number;
  send_count: number;
  receive_count: number;
}

export interface DbRune {
  number: number;
  block_height: number;
  tx_index: number;
  rune: string;
  spacers: number;
  divisibility: number;
  symbol: string | null;
  premine: string;
  has_terms: boolean;
  terms_amount: string | null;
  terms_cap: string | null;
  terms_height_start: string | null;
  terms_height_end: string | null;
  terms_offset_start: string | null;
  terms_offset_end: string | null;
  turbo: boolean;
  etching_tx_id: string | null;
  etching_block_hash: string | null;
  block_time: string;
  mints: string;
  burned: string;
  burn_count: string;
  activity_count: string;
  holder_count: string;
}

export interface DbRuneOutput {
  tx_id: Buffer;
  vout: number;
  rune_number: number;
  address: string | null;
  amount: string;
  created_height: number;
  spent_height: number | null;
}

export interface DbRuneTaprootOutput {
  tx_id: Buffer;
  vout: number;
  created_height: number;
  spent_height: number | null;
}

export interface DbRuneActivity {
  block_height: number;
  position: number;
  tx_index: number;
  tx_id: string;
  rune_number: number;
  operation: number;
  address: string | null;
  receiver_address: string | null;
  amount: string | null;
  vout: number | null;
  op_position: number;
  before_etching: number;
  before_mint: number;
  before_burn: number;
  before_send: number;
  before_receive: number;
  rune_seq: string;
  address_seq: string | null;
  rune_address_seq: string | null;
}

export interface DbRuneTx {
  tx_id: string;
  block_height: number;
  tx_index: number;
  first_position: number;
  activity_count: number;
}

export interface DbRuneBalance {
  rune_number: number;
  address: string;
  balance: string;
  activity_count: string;
}

export interface DbRuneAddress {
  address: string;
  activity_count: string;
  rune_count: number;
}
