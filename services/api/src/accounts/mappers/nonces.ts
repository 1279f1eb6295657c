import type { DbAddressNonces } from '../datastore/nonces';

/** `/extended/v1/address/{principal}/nonces` (and v3's `/nonces`). Nonces are JSON integers, as the reference's. */
export interface AddressNoncesResponse {
  last_mempool_tx_nonce: number | null;
  last_executed_tx_nonce: number | null;
  possible_next_nonce: number;
  detected_missing_nonces: number[];
  detected_mempool_nonces: number[];
}

/** The larger of two nullable nonces, null when both are. */
function maxNonce(a: string | null, b: string | null): bigint | null {
  if (a === null && b === null) return null;
  const x = BigInt(a ?? 0);
  const y = BigInt(b ?? 0);
  return x > y ? x : y;
}

/** The gap a client must fill: nonces between the last executed and the last pending one, and which of them are pending. */
export interface NonceGap {
  low: bigint;
  high: bigint;
}

/** Most nonces a gap lists (the ones just above the last executed nonce): a client fills them in order. */
const MAX_GAP_NONCES = 10_000n;

export function nonceGap(n: DbAddressNonces): NonceGap | null {
  const executed = maxNonce(n.executed, n.executed_sponsor);
  const mempool = maxNonce(n.mempool, n.mempool_sponsor);
  if (executed === null || mempool === null || mempool - executed <= 1n) return null;
  const high = mempool - 1n < executed + MAX_GAP_NONCES ? mempool - 1n : executed + MAX_GAP_NONCES;
  return { low: executed + 1n, high };
}

export function toAddressNoncesResponse(
  n: DbAddressNonces,
  gap: NonceGap | null,
  pendingInGap: readonly bigint[],
): AddressNoncesResponse {
  const executed = maxNonce(n.executed, n.executed_sponsor);
  const mempool = maxNonce(n.mempool, n.mempool_sponsor);
  const next =
    executed === null && mempool === null ? 0n : (maxNonce(executed?.toString() ?? null, mempool?.toString() ?? null) ?? 0n) + 1n;
  const missing: number[] = [];
  if (gap) {
    const pending = new Set(pendingInGap);
    for (let i = gap.high; i >= gap.low; i--) if (!pending.has(i)) missing.push(Number(i));
  }
  return {
    last_mempool_tx_nonce: mempool === null ? null : Number(mempool),
    last_executed_tx_nonce: executed === null ? null : Number(executed),
    possible_next_nonce: Number(next),
    detected_missing_nonces: missing,
    detected_mempool_nonces: gap ? pendingInGap.map(Number) : [],
  };
}
