import { toMempoolStatusJson, toMempoolTxJson, toMinedTxJson, toTxMetadataJson, type DbEvent } from '@bda/db';
import type {
  MempoolTransactionResponse,
  MempoolTxStatus,
  TransactionMetadataResponse,
  TransactionResponse,
} from '../../api-types';
import type { ContractAbis } from '../datastore/contract-abis';
import type { DbMempoolTxRow } from '../datastore/mempool';
import type { DbTxRow } from '../datastore/txs';
import { toEventResponses } from './event';
import { withResultsJson } from '../../mappers/page-json';

export { functionSignature, UnexpectedRowError } from '@bda/db';

/** The type-specific part of a transaction from its stored `type_id` and `payload` jsonb (`@bda/db`'s rendering). */
export function toTxMetadata(typeId: string, payload: Record<string, unknown>, abis?: ContractAbis): TransactionMetadataResponse {
  return toTxMetadataJson(typeId, payload, abis) as TransactionMetadataResponse;
}

/**
 * A canonical mined transaction in the reference API's shape, with `events` (one page of them; empty in lists,
 * as the reference's lists are): `@bda/db`'s `toMinedTxJson`, the rendering the indexer's kept list texts use too
 * (ADR 0035). Times fall back like the reference: `block_time` to the burn block time.
 */
export function toTransactionResponse(row: DbTxRow, events: DbEvent[] = [], abis?: ContractAbis): TransactionResponse {
  return toMinedTxJson(row, toEventResponses(events), abis) as TransactionResponse;
}

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

/** The mempool status as clients see it (`@bda/db`'s `toMempoolStatusJson`). */
export function toMempoolStatus(status: string): MempoolTxStatus {
  return toMempoolStatusJson(status);
}

/**
 * A mempool transaction in the reference API's shape: `@bda/db`'s `toMempoolTxJson`, the rendering the indexer's
 * kept list texts of pending transactions use too (ADR 0041).
 */
export function toMempoolTransactionResponse(row: DbMempoolTxRow, abis?: ContractAbis): MempoolTransactionResponse {
  return toMempoolTxJson(row, abis) as MempoolTransactionResponse;
}

/**
 * A numbered page of transactions (mined or pending) as JSON text — `{limit, offset, total, results}` as
 * `JSON.stringify` writes the object — with the page's kept list texts (`tx_list_json`, ADR 0035; `mempool_tx_json`,
 * ADR 0041), already joined with `,`, copied in unparsed. With `exclude` (the reference's `exclude_function_args`),
 * each is parsed and written again without its contract call's arguments: the same text `JSON.stringify` gives the
 * object (parsing keeps the key order).
 */
export function toTxPageJson(page: { limit: number; offset: number; total: number }, joined: string, exclude = false): string {
  return withResultsJson(
    { limit: page.limit, offset: page.offset, total: page.total },
    exclude ? joinedWithoutFunctionArgs(joined) : joined,
  );
}

/** Kept transaction texts joined with `,`, each parsed and written again without its contract call's arguments. */
function joinedWithoutFunctionArgs(joined: string): string {
  if (joined === '') return '';
  return (JSON.parse(`[${joined}]`) as object[]).map((t) => JSON.stringify(withoutFunctionArgs(t))).join(',');
}
