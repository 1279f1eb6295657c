import { toBaseTxJson, toMinedTxJson, toTxMetadataJson, type DbBaseTxJsonRow, type DbEvent } from '@bda/db';
import type {
  BaseTransactionResponse,
  MempoolTransactionResponse,
  MempoolTxStatus,
  TransactionMetadataResponse,
  TransactionResponse,
} from '../../api-types';
import type { ContractAbis } from '../datastore/contract-abis';
import type { DbMempoolTxRow } from '../datastore/mempool';
import type { DbTxRow } from '../datastore/txs';
import { toEventResponses } from './event';
import { isoToUnix, unixToIso } from '../../mappers/row-values';

export { functionSignature, UnexpectedRowError } from '@bda/db';

/** The type-specific part of a transaction from its stored `type_id` and `payload` jsonb (`@bda/db`'s rendering). */
export function toTxMetadata(typeId: string, payload: Record<string, unknown>, abis?: ContractAbis): TransactionMetadataResponse {
  return toTxMetadataJson(typeId, payload, abis) as TransactionMetadataResponse;
}

function toBaseTx(row: DbBaseTxJsonRow, sponsored: boolean): BaseTransactionResponse {
  return toBaseTxJson(row, sponsored) as BaseTransactionResponse;
}

/**
 * A canonical mined transaction in the reference API's shape, with `events` (one page of them; empty in lists,
 * as the reference's lists are): `@bda/db`'s `toMinedTxJson`, the rendering the indexer's kept list texts use too
 * (ADR 0035). Times fall back like the reference: `block_time` to the burn block time.
 */
export function toTransactionResponse(row: DbTxRow, events: DbEvent[] = [], abis?: ContractAbis): TransactionResponse {
  return toMinedTxJson(row, toEventResponses(events), abis) as TransactionResponse;
}

const DROPPED_STATUSES = new Set<MempoolTxStatus>([
  'dropped_replace_by_fee',
  'dropped_replace_across_fork',
  'dropped_too_expensive',
  'dropped_stale_garbage_collect',
  'dropped_problematic',
]);

/**
 * The reference API's `exclude_function_args=true` when `exclude` is set: a contract call without its
 * `function_args` (the signature stays), for clients that list many transactions and never show the arguments.
 */
export function withoutFunctionArgs<T extends object>(tx: T, exclude = true): T {
  const call = (tx as { contract_call?: { function_args?: unknown } }).contract_call;
  if (!exclude || !call || call.function_args === undefined) return tx;
  const { function_args: _dropped, ...rest } = call;
  return { ...tx, contract_call: rest };
}

/**
 * The mempool status as clients see it. `mined` shows as `pending`: a row only reads `mined` here when the block
 * that mined it was applied between the api's two lookups (or is not canonical any more), and the reference shows
 * such transactions as pending too. A drop for a reason the reference has no name for (stored as `dropped_unknown`:
 * a node reason newer than this api, or none) shows as `dropped_stale_garbage_collect`, the reference's own catch-all
 * for drops outside the node's named reasons, so that clients with a closed set of statuses can read it.
 */
export function toMempoolStatus(status: string): MempoolTxStatus {
  if (status === 'pending' || status === 'mined') return 'pending';
  if (DROPPED_STATUSES.has(status as MempoolTxStatus)) return status as MempoolTxStatus;
  return 'dropped_stale_garbage_collect';
}

export function toMempoolTransactionResponse(row: DbMempoolTxRow, abis?: ContractAbis): MempoolTransactionResponse {
  const receiptTime = isoToUnix(row.receipt_time);
  return {
    ...toBaseTx(row, row.sponsor_address !== null),
    tx_status: toMempoolStatus(row.status),
    replaced_by_tx_id: row.replaced_by_tx_id ?? null,
    receipt_time: receiptTime,
    receipt_time_iso: unixToIso(receiptTime),
    ...toTxMetadata(row.type_id, row.payload, abis),
  };
}

/**
 * A page of mined transactions as JSON text — `{limit, offset, total, results}` as `JSON.stringify` writes the object
 * — with each transaction's kept list text (`tx_list_json`, ADR 0035) copied in unparsed. With `exclude` (the
 * reference's `exclude_function_args`), each contract call is parsed and written again without its arguments: the
 * same text `JSON.stringify` gives the object (parsing keeps the key order).
 */
export function toTxListJson(
  page: { limit: number; offset: number; total: number },
  texts: readonly string[],
  exclude = false,
): string {
  const head = JSON.stringify({ limit: page.limit, offset: page.offset, total: page.total });
  const results = exclude ? texts.map((t) => JSON.stringify(withoutFunctionArgs(JSON.parse(t) as object))) : texts;
  return `${head.slice(0, -1)},"results":[${results.join(',')}]}`;
}
