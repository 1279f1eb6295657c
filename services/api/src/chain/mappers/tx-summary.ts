import type { DbTxSummaryRow } from '../datastore/block-tx-summaries';
import type { TransactionSummaryResponse } from '../../mappers/v3-transaction-summary';
import { withResultsJson } from '../../mappers/page-json';

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
  results: TransactionSummaryResponse[];
}

/** A row's `block_height:microblock_sequence:tx_index` cursor. */
export function txCursorOf(r: Pick<DbTxSummaryRow, 'block_height' | 'seq' | 'tx_index'>): string {
  return `${r.block_height}:${r.seq}:${r.tx_index}`;
}

/**
 * The JSON text of a `TxSummaryPageResponse` whose results are the kept summary texts `results` (each
 * `JSON.stringify` of a `TransactionSummaryResponse`): the same text `JSON.stringify` writes for the object.
 */
export function txSummaryPageJson(page: Omit<TxSummaryPageResponse, 'results'>, results: readonly string[]): string {
  return withResultsJson({ total: page.total, limit: page.limit, cursor: page.cursor }, results.join(','));
}
