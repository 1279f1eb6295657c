import type { DbEvent } from '@bda/db';
// The chain family's row types and value helpers: every list of transactions reads the same rows (see the report on ADR 0023).
import type { DbTxRow } from '../../chain/datastore/txs';
import type { DbMempoolTxRow } from '../../chain/datastore/mempool';
import { int, isoToUnix, str, strOrNull } from '../../chain/mappers/common';
import { toMempoolStatus } from '../../chain/mappers/tx';
import { clarityValueView, type ClarityValueView } from '../../codec';
import type { DbPrincipalBalanceChange, DbPrincipalTxActivity } from '../datastore/v3-transactions';

/** The microblock sequence of an anchored transaction in the v3 cursors (int4 max, as the reference API writes it). */
export const ANCHORED_SEQUENCE = 2147483647;

/** A v3 transaction cursor, `<block height>:<microblock sequence>:<tx index>`. */
export function txCursorOf(row: { block_height: number; microblock_sequence: number | null; tx_index: number }): string {
  return `${row.block_height}:${row.microblock_sequence ?? ANCHORED_SEQUENCE}:${row.tx_index}`;
}

type Sender = { address: string; nonce: number };

interface BaseSummaryResponse {
  tx_id: string;
  sender: Sender;
  sponsor: Sender | null;
  fee_rate: string;
}

interface MinedSummaryBase extends BaseSummaryResponse {
  block: { height: number; hash: string; index_hash: string; time: number; tx_index: number };
  bitcoin_block: { height: number; time: number };
  status: string;
}

interface MempoolSummaryBase extends BaseSummaryResponse {
  receipt_time: number;
  receipt_block_height: number;
  status: string;
}

/** The type-specific part: `type` and the object named after it (see `typePart`). */
type TypePart = { type: string } & Record<string, unknown>;

type TransactionSummaryResponse = MinedSummaryBase & TypePart;

type TransactionV3Response = MinedSummaryBase &
  TypePart & {
    parent_block: { hash: string; index_hash: string };
    event_count: number;
    execution_cost: { read_count: number; read_length: number; runtime: number; write_count: number; write_length: number };
    vm_error: string | null;
    post_conditions?: unknown[];
    result?: ClarityValueView;
  };

type MempoolTransactionSummaryResponse = MempoolSummaryBase & TypePart;

type MempoolTransactionV3Response = MempoolSummaryBase &
  TypePart & {
    replaced_by_tx_id: string | null;
    post_conditions?: unknown[];
  };

/** Heavy fields `/extended/v3/transactions/{tx_id}` adds on request (`include`). */
export const TX_INCLUDE_FIELDS = ['function_args', 'source_code', 'post_conditions', 'result'] as const;
export type TxIncludeField = (typeof TX_INCLUDE_FIELDS)[number];

const MINED_STATUSES = new Set(['success', 'abort_by_response', 'abort_by_post_condition', 'problematic_skipped']);

/**
 * A memo as the reference shows it: its bytes as UTF-8 (undecodable ones replaced) without the NUL bytes that pad it
 * to 34 bytes (as the chain family's v3 block lists show it); null for an empty memo.
 */
function memoView(hex: string): { hex: string; repr: string } | null {
  const body = hex.replace(/^0x/i, '');
  if (body.length === 0) return null;
  return { hex: `0x${body.toLowerCase()}`, repr: Buffer.from(body, 'hex').toString('utf8').replace(/\0/g, '') };
}

function sender(address: string, nonce: string | number): Sender {
  return { address, nonce: int(nonce) };
}

function sponsorOf(address: string | null, nonce: string | null, sponsored: boolean): Sender | null {
  return sponsored && address !== null ? sender(address, nonce ?? 0) : null;
}

function clarityVersion(payload: Record<string, unknown>): number | null {
  const v = payload['clarity_version'];
  return typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : null;
}

/** The type-specific part of a summary (`full`: the transaction endpoint's, with its heavier fields on request). */
function typePart(
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

/** A canonical mined transaction as the v3 lists show it (the reference's `TransactionSummary`). */
export function toTransactionSummaryResponse(row: DbTxRow): TransactionSummaryResponse {
  return { ...summaryBase(row), ...typePart(row.type_id, row.payload, { mempool: false, full: false, include: [] }) };
}

function summaryBase(row: DbTxRow): MinedSummaryBase {
  const burnTime = int(row.burn_block_time);
  const ownTime = int(row.block_time);
  return {
    tx_id: row.tx_id,
    sender: sender(row.sender_address, row.nonce),
    sponsor: sponsorOf(row.sponsor_address, row.sponsor_nonce, row.sponsored),
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

/** `/extended/v3/transactions/{tx_id}` for a mined transaction; `eventCount` counts its committed events. */
export function toTransactionV3Response(
  row: DbTxRow,
  eventCount: number,
  include: readonly TxIncludeField[],
): TransactionV3Response {
  const out: Record<string, unknown> = {
    ...summaryBase(row),
    parent_block: { hash: row.parent_block_hash ?? '', index_hash: row.parent_index_block_hash },
    event_count: eventCount,
    execution_cost: {
      read_count: int(row.execution_cost_read_count),
      read_length: int(row.execution_cost_read_length),
      runtime: int(row.execution_cost_runtime),
      write_count: int(row.execution_cost_write_count),
      write_length: int(row.execution_cost_write_length),
    },
    vm_error: row.vm_error ?? null,
  };
  if (include.includes('post_conditions')) out['post_conditions'] = Array.isArray(row.post_conditions) ? row.post_conditions : [];
  if (include.includes('result')) out['result'] = clarityValueView(row.raw_result);
  return { ...out, ...typePart(row.type_id, row.payload, { mempool: false, full: true, include }) } as TransactionV3Response;
}

function mempoolBase(row: DbMempoolTxRow): MempoolSummaryBase {
  return {
    tx_id: row.tx_id,
    sender: sender(row.sender_address, row.nonce),
    sponsor: sponsorOf(row.sponsor_address, row.sponsor_nonce, row.sponsor_address !== null),
    fee_rate: row.fee_rate,
    receipt_time: isoToUnix(row.receipt_time),
    receipt_block_height: row.receipt_block_height ?? 0,
    status: toMempoolStatus(row.status),
  };
}

/** A pending transaction as the v3 mempool lists show it (the reference's `MempoolTransactionSummary`). */
export function toMempoolTransactionSummaryResponse(row: DbMempoolTxRow): MempoolTransactionSummaryResponse {
  return { ...mempoolBase(row), ...typePart(row.type_id, row.payload, { mempool: true, full: false, include: [] }) };
}

/** `/extended/v3/transactions/{tx_id}` for a pending transaction (`result` does not apply to one). */
export function toMempoolTransactionV3Response(
  row: DbMempoolTxRow,
  include: readonly TxIncludeField[],
): MempoolTransactionV3Response {
  const out: Record<string, unknown> = { ...mempoolBase(row), replaced_by_tx_id: row.replaced_by_tx_id ?? null };
  if (include.includes('post_conditions')) out['post_conditions'] = Array.isArray(row.post_conditions) ? row.post_conditions : [];
  return {
    ...out,
    ...typePart(row.type_id, row.payload, { mempool: true, full: true, include }),
  } as MempoolTransactionV3Response;
}

function eventValue(e: DbEvent): ClarityValueView {
  return e.value_hex && e.value_repr !== null ? { hex: e.value_hex, repr: e.value_repr } : clarityValueView(e.value_hex);
}

/** A committed event in the v3 shape; null for a kind the v3 shape has none for. */
export function toTransactionEventV3Response(e: DbEvent): Record<string, unknown> | null {
  const base = { event_index: e.event_index };
  const amount = e.amount ?? '0';
  switch (e.type) {
    case 'contract_event':
      return {
        ...base,
        type: 'contract_log',
        contract_log: { contract_id: e.contract_identifier ?? '', topic: 'print', value: eventValue(e) },
      };
    case 'stx_lock_event':
      return {
        ...base,
        type: 'stx_lock',
        stx_lock: {
          amount: e.locked_amount ?? '0',
          unlock_bitcoin_height: int(e.unlock_height),
          address: e.locked_address ?? '',
        },
      };
    case 'stx_transfer_event':
      return {
        ...base,
        type: 'stx_asset',
        stx_asset: {
          type: 'transfer',
          sender: e.sender ?? '',
          recipient: e.recipient ?? '',
          amount,
          memo: e.memo ? memoView(e.memo) : null,
        },
      };
    case 'stx_mint_event':
      return { ...base, type: 'stx_asset', stx_asset: { type: 'mint', recipient: e.recipient ?? '', amount } };
    case 'stx_burn_event':
      return { ...base, type: 'stx_asset', stx_asset: { type: 'burn', sender: e.sender ?? '', amount } };
  }
  const asset = e.asset_identifier ?? '';
  switch (e.type) {
    case 'ft_transfer_event':
      return {
        ...base,
        type: 'ft_asset',
        ft_asset: { type: 'transfer', asset_identifier: asset, sender: e.sender ?? '', recipient: e.recipient ?? '', amount },
      };
    case 'ft_mint_event':
      return {
        ...base,
        type: 'ft_asset',
        ft_asset: { type: 'mint', recipient: e.recipient ?? '', asset_identifier: asset, amount },
      };
    case 'ft_burn_event':
      return { ...base, type: 'ft_asset', ft_asset: { type: 'burn', sender: e.sender ?? '', asset_identifier: asset, amount } };
    case 'nft_transfer_event':
      return {
        ...base,
        type: 'nft_asset',
        nft_asset: {
          type: 'transfer',
          asset_identifier: asset,
          sender: e.sender ?? '',
          recipient: e.recipient ?? '',
          value: eventValue(e),
        },
      };
    case 'nft_mint_event':
      return {
        ...base,
        type: 'nft_asset',
        nft_asset: { type: 'mint', recipient: e.recipient ?? '', asset_identifier: asset, value: eventValue(e) },
      };
    case 'nft_burn_event':
      return {
        ...base,
        type: 'nft_asset',
        nft_asset: { type: 'burn', sender: e.sender ?? '', asset_identifier: asset, value: eventValue(e) },
      };
    default:
      return null;
  }
}

/** The event kinds the v3 shape has (the statement reads and counts only these). */
export const V3_EVENT_TYPES = `('contract_event', 'stx_lock_event', 'stx_transfer_event', 'stx_mint_event', 'stx_burn_event',
  'ft_transfer_event', 'ft_mint_event', 'ft_burn_event', 'nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`;

/** How the principal is party to a transaction, as the reference names it. */
function involvementOf(principal: string, row: DbTxRow): 'sender' | 'sponsor' | 'affected' {
  if (row.sender_address === principal) return 'sender';
  if (row.sponsored && row.sponsor_address === principal) return 'sponsor';
  return 'affected';
}

/** One row of `/extended/v3/principals/{principal}/transactions`: the summary, the principal's part and STX moved. */
export function toPrincipalTransactionResponse(principal: string, row: DbTxRow & DbPrincipalTxActivity): Record<string, unknown> {
  const sent = BigInt(row.stx_sent);
  const received = BigInt(row.stx_received);
  return {
    transaction: toTransactionSummaryResponse(row),
    involvement: involvementOf(principal, row),
    balance_changes: { stx: { sent: sent.toString(), received: received.toString(), net: (received - sent).toString() } },
    affected_balances: { stx: row.stx_balance_affected, ft: row.ft_balance_affected, nft: row.nft_balance_affected },
  };
}

const ASSET_TYPES: Record<number, 'stx' | 'ft' | 'nft'> = { 1: 'stx', 2: 'ft', 3: 'nft' };

/** A balance change (`withTxId`: the multi-transaction form, which names its transaction). */
export function toBalanceChangeResponse(row: DbPrincipalBalanceChange, withTxId: boolean): Record<string, unknown> {
  const type = ASSET_TYPES[row.asset_type] ?? 'stx';
  const sent = BigInt(row.sent);
  const received = BigInt(row.received);
  return {
    ...(withTxId ? { tx_id: row.tx_id } : {}),
    asset: type === 'stx' ? { type } : { type, identifier: row.asset_identifier },
    balance_change: { sent: sent.toString(), received: received.toString(), net: (received - sent).toString() },
  };
}

/** The cursor of a balance change in the multi-transaction list. */
export function balanceChangeCursorOf(row: DbPrincipalBalanceChange): string {
  return `${row.block_height}:${row.microblock_sequence}:${row.tx_index}:${row.asset_type}:${row.asset_identifier}`;
}
