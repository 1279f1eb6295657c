import {
  toMempoolSummaryBaseJson,
  toMempoolTransactionSummaryJson,
  type DbEvent,
  type MempoolSummaryBaseJson,
  type MempoolTransactionSummaryJson,
} from '@bda/db';
// The chain family's row types and value helpers: every list of transactions reads the same rows (see the report on ADR 0023).
import type { DbTxRow } from '../../chain/datastore/txs';
import type { DbMempoolTxRow } from '../../chain/datastore/mempool';
import { int } from '../../mappers/row-values';
import {
  ANCHORED_SEQUENCE,
  memoView,
  summaryBase,
  typePart,
  type MinedSummaryBase,
  type TxIncludeField,
  type TypePart,
} from '../../mappers/v3-transaction-summary';
import { clarityValueView, type ClarityValueView } from '../../codec';
import type { DbPrincipalBalanceChange } from '../datastore/v3-transactions';

/** A v3 transaction cursor, `<block height>:<microblock sequence>:<tx index>`. */
export function txCursorOf(row: { block_height: number; microblock_sequence: number | null; tx_index: number }): string {
  return `${row.block_height}:${row.microblock_sequence ?? ANCHORED_SEQUENCE}:${row.tx_index}`;
}

type TransactionV3Response = MinedSummaryBase &
  TypePart & {
    parent_block: { hash: string; index_hash: string };
    event_count: number;
    execution_cost: { read_count: number; read_length: number; runtime: number; write_count: number; write_length: number };
    vm_error: string | null;
    post_conditions?: unknown[];
    result?: ClarityValueView;
  };

type MempoolTransactionSummaryResponse = MempoolTransactionSummaryJson;

type MempoolTransactionV3Response = MempoolSummaryBaseJson &
  TypePart & {
    replaced_by_tx_id: string | null;
    post_conditions?: unknown[];
  };

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

/**
 * A pending transaction as the v3 mempool lists show it (the reference's `MempoolTransactionSummary`): `@bda/db`'s
 * rendering, the one the indexer keeps the pages' texts with (`mempool_tx_json.v3_json`, ADR 0045).
 */
export function toMempoolTransactionSummaryResponse(row: DbMempoolTxRow): MempoolTransactionSummaryResponse {
  return toMempoolTransactionSummaryJson(row);
}

/** `/extended/v3/transactions/{tx_id}` for a pending transaction (`result` does not apply to one). */
export function toMempoolTransactionV3Response(
  row: DbMempoolTxRow,
  include: readonly TxIncludeField[],
): MempoolTransactionV3Response {
  const out: Record<string, unknown> = { ...toMempoolSummaryBaseJson(row), replaced_by_tx_id: row.replaced_by_tx_id ?? null };
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

/**
 * One row of `/extended/v3/principals/{principal}/transactions` is kept as JSON text by the indexer
 * (`principal_tx_json.v3_json`, ADR 0039), rendered by `toPrincipalTransactionJson` of `@bda/db`.
 */

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
