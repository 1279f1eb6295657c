import type { DbMempoolStatsRow } from '../datastore/tx-lists';

/** Percentiles of one measure of one transaction type; null when the mempool has no transaction of the type. */
interface MempoolStatsPercentiles {
  p25: number | null;
  p50: number | null;
  p75: number | null;
  p95: number | null;
}

/** The reference API's `/extended/v1/tx/mempool/stats`. */
export interface MempoolStatsResponse {
  tx_type_counts: Record<string, number>;
  tx_simple_fee_averages: Record<string, MempoolStatsPercentiles>;
  tx_ages: Record<string, MempoolStatsPercentiles>;
  tx_byte_sizes: Record<string, MempoolStatsPercentiles>;
}

/** The types the reference reports (the only ones a mempool holds), always all of them. */
const MEMPOOL_STATS_TYPES = ['token_transfer', 'smart_contract', 'contract_call', 'poison_microblock'] as const;

function percentiles(values: Array<number | null> | null | undefined): MempoolStatsPercentiles {
  const at = (i: number) => (values && values[i] != null ? Number(values[i]) : null);
  return { p25: at(0), p50: at(1), p75: at(2), p95: at(3) };
}

export function toMempoolStatsResponse(rows: readonly DbMempoolStatsRow[]): MempoolStatsResponse {
  const out: MempoolStatsResponse = { tx_type_counts: {}, tx_simple_fee_averages: {}, tx_ages: {}, tx_byte_sizes: {} };
  for (const type of MEMPOOL_STATS_TYPES) {
    const row = rows.find((r) => r.type_id === type);
    out.tx_type_counts[type] = row ? Number(row.n) : 0;
    out.tx_simple_fee_averages[type] = percentiles(row?.fees);
    out.tx_ages[type] = percentiles(row?.ages);
    out.tx_byte_sizes[type] = percentiles(row?.sizes);
  }
  return out;
}
