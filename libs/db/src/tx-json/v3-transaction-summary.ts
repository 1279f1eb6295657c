import { int, str, strOrNull } from './row-values';

/**
 * The reference API's v3 `TransactionSummary`, shared by every list that shows one: a block's transactions (chain),
 * the transaction lists and a principal's (accounts), and the type-specific part the v3 transaction endpoint builds on.
 */

/** The microblock sequence of an anchored transaction in the v3 cursors (int4 max, as the reference API writes it). */
export const ANCHORED_SEQUENCE = 2147483647;

/** The columns a mined transaction's summary is made of (a row of either family's statements). */
export interface DbTxSummaryFields {
  tx_id: string;
  sender_address: string;
  nonce: string | number;
  sponsor_address: string | null;
  sponsor_nonce: string | null;
  /** Whether the transaction is sponsored; when a statement does not say, a sponsor address means it is. */
  sponsored?: boolean;
  fee_rate: string;
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  block_time: string | number | null;
  burn_block_time: string | number;
  burn_block_height: number;
  tx_index: number;
  status: string;
  type_id: string;
  payload: Record<string, unknown>;
}

export type Sender = { address: string; nonce: number };

interface BaseSummaryResponse {
  tx_id: string;
  sender: Sender;
  sponsor: Sender | null;
  fee_rate: string;
}

export interface MinedSummaryBase extends BaseSummaryResponse {
  block: { height: number; hash: string; index_hash: string; time: number; tx_index: number };
  bitcoin_block: { height: number; time: number };
  status: string;
}

/** The type-specific part: `type` and the object named after it (see `typePart`). */
export type TypePart = { type: string } & Record<string, unknown>;

export type TransactionSummaryResponse = MinedSummaryBase & TypePart;

/** Heavy fields `/extended/v3/transactions/{tx_id}` adds on request (`include`). */
export const TX_INCLUDE_FIELDS = ['function_args', 'source_code', 'post_conditions', 'result'] as const;
export type TxIncludeField = (typeof TX_INCLUDE_FIELDS)[number];

const MINED_STATUSES = new Set(['success', 'abort_by_response', 'abort_by_post_condition', 'problematic_skipped']);

/**
 * A memo as the reference shows it: its bytes as UTF-8 (undecodable ones replaced) without the NUL bytes that pad it
 * to 34 bytes; null for an empty memo.
 */
export function memoView(hex: string): { hex: string; repr: string } | null {
  const body = hex.replace(/^0x/i, '');
  if (body.length === 0) return null;
  return { hex: `0x${body.toLowerCase()}`, repr: Buffer.from(body, 'hex').toString('utf8').replace(/\0/g, '') };
}

export function sender(address: string, nonce: string | number): Sender {
  return { address, nonce: int(nonce) };
}

export function sponsorOf(address: string | null, nonce: string | null, sponsored: boolean): Sender | null {
  return sponsored && address !== null ? sender(address, nonce ?? 0) : null;
}

function clarityVersion(payload: Record<string, unknown>): number | null {
  const v = payload['clarity_version'];
  return typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : null;
}

/** The type-specific part of a summary (`full`: the transaction endpoint's, with its heavier fields on request). */
export function typePart(
  typeId: string,
  payload: Record<string, unknown>,
  opts: { mempool: boolean; full: boolean; include: readonly TxIncludeField[] },
): TypePart {
  switch (typeId) {
    case 'token_transfer':
      return {
        type: 'token_transfer',
        token_transfer: {
          recipient: str(payload, 'recipient_address'),
          amount: str(payload, 'amount', '0'),
          memo: memoView(str(payload, 'memo', '0x')),
        },
      };
    case 'smart_contract':
      return {
        type: 'smart_contract',
        smart_contract: {
          contract_id: str(payload, 'contract_id'),
          clarity_version: clarityVersion(payload),
          ...(opts.full && opts.include.includes('source_code') ? { source_code: str(payload, 'source_code') } : {}),
        },
      };
    case 'contract_call': {
      const args = Array.isArray(payload['function_args']) ? (payload['function_args'] as Array<Record<string, unknown>>) : [];
      return {
        type: 'contract_call',
        contract_call: {
          contract_id: str(payload, 'contract_id'),
          function_name: str(payload, 'function_name'),
          ...(opts.full && opts.include.includes('function_args')
            ? { function_args: args.map((a) => ({ hex: str(a, 'hex'), repr: str(a, 'repr') })) }
            : {}),
        },
      };
    }
    case 'poison_microblock':
      return { type: 'poison_microblock' };
    case 'coinbase':
      if (opts.mempool) return { type: 'coinbase' };
      return {
        type: 'coinbase',
        coinbase: opts.full
          ? {
              payload: str(payload, 'data'),
              alt_recipient: strOrNull(payload, 'alt_recipient'),
              vrf_proof: strOrNull(payload, 'vrf_proof'),
            }
          : { alt_recipient: strOrNull(payload, 'alt_recipient') },
      };
    case 'tenure_change': {
      if (opts.mempool) return { type: 'tenure_change' };
      const cause = str(payload, 'cause', 'block_found');
      return {
        type: 'tenure_change',
        tenure_change: opts.full
          ? {
              tenure_consensus_hash: str(payload, 'tenure_consensus_hash'),
              prev_tenure_consensus_hash: str(payload, 'prev_tenure_consensus_hash'),
              burn_view_consensus_hash: str(payload, 'burn_view_consensus_hash'),
              previous_tenure_end: str(payload, 'previous_tenure_end'),
              previous_tenure_blocks: int(payload['previous_tenure_blocks'] as number | string | null | undefined),
              cause,
              pubkey_hash: str(payload, 'pubkey_hash'),
            }
          : { cause },
      };
    }
    default:
      // A type this api does not know: its own name, no type-specific part.
      return { type: typeId };
  }
}

/**
 * What every mined summary shows: the block's own time, falling back to the burn block's before Nakamoto (as the v2
 * block does); the sponsor when sponsored (nonce 0 for rows indexed before the sponsor's nonce was kept).
 */
export function summaryBase(row: DbTxSummaryFields): MinedSummaryBase {
  const burnTime = int(row.burn_block_time);
  const ownTime = int(row.block_time);
  return {
    tx_id: row.tx_id,
    sender: sender(row.sender_address, row.nonce),
    sponsor: sponsorOf(row.sponsor_address, row.sponsor_nonce, row.sponsored ?? row.sponsor_address !== null),
    fee_rate: row.fee_rate,
    block: {
      height: row.block_height,
      hash: row.block_hash,
      index_hash: row.index_block_hash,
      time: ownTime > 0 ? ownTime : burnTime,
      tx_index: row.tx_index,
    },
    bitcoin_block: { height: row.burn_block_height, time: burnTime },
    status: MINED_STATUSES.has(row.status) ? row.status : 'abort_by_response',
  };
}

/** A canonical mined transaction as the v3 lists show it (the reference's `TransactionSummary`). */
export function toTransactionSummaryResponse(row: DbTxSummaryFields): TransactionSummaryResponse {
  return { ...summaryBase(row), ...typePart(row.type_id, row.payload, { mempool: false, full: false, include: [] }) };
}
