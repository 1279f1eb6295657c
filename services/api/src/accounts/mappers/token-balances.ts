import type { DbTokenBalance } from '../datastore/token-balances';

export interface FtBalanceResponse {
  balance: string;
  total_sent: string;
  total_received: string;
}

export interface NftBalanceResponse {
  count: string;
  total_sent: string;
  total_received: string;
}

/** `fungible_tokens` of `/extended/v1/address/{principal}/balances`: every FT the principal ever held, by asset. */
export function toFtBalancesResponse(rows: readonly DbTokenBalance[]): Record<string, FtBalanceResponse> {
  const out: Record<string, FtBalanceResponse> = {};
  for (const r of rows)
    out[r.asset_identifier] = { balance: r.balance, total_sent: r.total_sent, total_received: r.total_received };
  return out;
}

/** `non_fungible_tokens` of the same: values held (`count`), sent and received, by asset. */
export function toNftBalancesResponse(rows: readonly DbTokenBalance[]): Record<string, NftBalanceResponse> {
  const out: Record<string, NftBalanceResponse> = {};
  for (const r of rows)
    out[r.asset_identifier] = { count: r.balance, total_sent: r.total_sent, total_received: r.total_received };
  return out;
}
