import type { DbTxSummaryRow } from '../datastore/block-tx-summaries';
import type { TransactionSummaryResponse } from '../../mappers/v3-transaction-summary';

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
export function txCursorOf(r: DbTxSummaryRow): string {
  return `${r.block_height}:${r.seq}:${r.tx_index}`;
}
