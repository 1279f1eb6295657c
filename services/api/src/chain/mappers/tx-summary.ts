import type { DbTxSummaryRow } from '../datastore/block-tx-summaries';
import { int, str, strOrNull } from './common';
import { UnexpectedRowError } from './tx';

/** The part every v3 `TransactionSummary` shares. */
interface BaseTxSummaryResponse {
  tx_id: string;
  sender: { address: string; nonce: number };
  sponsor: { address: string; nonce: number } | null;
  fee_rate: string;
  block: { height: number; hash: string; index_hash: string; time: number; tx_index: number };
  bitcoin_block: { height: number; time: number };
  status: string;
}

/** The reference API's v3 `TransactionSummary` (one variant per transaction type). */
type TxSummaryResponse = BaseTxSummaryResponse &
  (
    | {
        type: 'token_transfer';
        token_transfer: { recipient: string; amount: string; memo: { hex: string; repr: string } | null };
      }
    | { type: 'smart_contract'; smart_contract: { clarity_version: number | null; contract_id: string } }
    | { type: 'contract_call'; contract_call: { contract_id: string; function_name: string } }
    | { type: 'poison_microblock' }
    | { type: 'coinbase'; coinbase: { alt_recipient: string | null } }
    | { type: 'tenure_change'; tenure_change: { cause: string } }
  );

/** The v3 cursor shape (`block_height:microblock_sequence:tx_index`). */
interface CursorsResponse {
  next: string | null;
  previous: string | null;
  current: string | null;
}

export interface TxSummaryPageResponse {
  total: number;
  limit: number;
  cursor: CursorsResponse;
  results: TxSummaryResponse[];
}

/** A token-transfer memo as text: its bytes as UTF-8 with the NUL padding left out. */
function memoRepr(hex: string): string {
  return Buffer.from(hex.replace(/^0x/, ''), 'hex').toString('utf8').replace(/\0/g, '');
}

/** A row's `block_height:microblock_sequence:tx_index` cursor. */
export function txCursorOf(r: DbTxSummaryRow): string {
  return `${r.block_height}:${r.seq}:${r.tx_index}`;
}

/**
 * A mined transaction as the reference's v3 summary: its block's time falls back to the burn block's before Nakamoto
 * (as the v2 block does), the sponsor only when sponsored with a known sponsor nonce, the memo `null` when empty.
 */
export function toTxSummaryResponse(r: DbTxSummaryRow): TxSummaryResponse {
  const burnTime = int(r.burn_block_time);
  const ownTime = int(r.block_time);
  const base: BaseTxSummaryResponse = {
    tx_id: r.tx_id,
    sender: { address: r.sender_address, nonce: int(r.nonce) },
    sponsor:
      r.sponsor_address !== null && r.sponsor_nonce !== null ? { address: r.sponsor_address, nonce: int(r.sponsor_nonce) } : null,
    fee_rate: r.fee_rate,
    block: {
      height: r.block_height,
      hash: r.block_hash,
      index_hash: r.index_block_hash,
      time: ownTime > 0 ? ownTime : burnTime,
      tx_index: r.tx_index,
    },
    bitcoin_block: { height: r.burn_block_height, time: burnTime },
    status: r.status,
  };
  const p = r.payload;
  switch (r.type_id) {
    case 'token_transfer': {
      const memo = str(p, 'memo', '0x');
      return {
        ...base,
        type: 'token_transfer',
        token_transfer: {
          recipient: str(p, 'recipient_address'),
          amount: str(p, 'amount', '0'),
          memo: memo === '0x' || memo === '' ? null : { hex: memo, repr: memoRepr(memo) },
        },
      };
    }
    case 'smart_contract': {
      const version = p['clarity_version'];
      return {
        ...base,
        type: 'smart_contract',
        smart_contract: {
          clarity_version: typeof version === 'number' ? version : null,
          contract_id: str(p, 'contract_id'),
        },
      };
    }
    case 'contract_call':
      return {
        ...base,
        type: 'contract_call',
        contract_call: { contract_id: str(p, 'contract_id'), function_name: str(p, 'function_name') },
      };
    case 'poison_microblock':
      return { ...base, type: 'poison_microblock' };
    case 'coinbase':
      return { ...base, type: 'coinbase', coinbase: { alt_recipient: strOrNull(p, 'alt_recipient') } };
    case 'tenure_change':
      return { ...base, type: 'tenure_change', tenure_change: { cause: str(p, 'cause', 'block_found') } };
    default:
      throw new UnexpectedRowError(`transaction type ${JSON.stringify(r.type_id)} is unknown to the api`);
  }
}
