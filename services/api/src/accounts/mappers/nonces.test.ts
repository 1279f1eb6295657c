import { describe, expect, it } from '@jest/globals';
import { nonceGap, toAddressNoncesResponse } from './nonces';

const row = (
  executed: string | null,
  mempool: string | null,
  executedSponsor: string | null = null,
  mempoolSponsor: string | null = null,
) => ({
  executed,
  executed_sponsor: executedSponsor,
  mempool,
  mempool_sponsor: mempoolSponsor,
});

describe('toAddressNoncesResponse', () => {
  it('gives 0 as the next nonce of an address that used none', () => {
    expect(toAddressNoncesResponse(row(null, null), null, [])).toEqual({
      last_mempool_tx_nonce: null,
      last_executed_tx_nonce: null,
      possible_next_nonce: 0,
      detected_missing_nonces: [],
      detected_mempool_nonces: [],
    });
  });

  it('takes the higher of origin and sponsor nonces, and the next above executed and pending', () => {
    const n = row('4', '6', '9', null);
    expect(toAddressNoncesResponse(n, nonceGap(n), [])).toMatchObject({
      last_executed_tx_nonce: 9,
      last_mempool_tx_nonce: 6,
      possible_next_nonce: 10,
      detected_missing_nonces: [],
    });
  });

  it('lists the nonces between the last executed and the last pending one that no pending transaction has', () => {
    const n = row('3', '8');
    const gap = nonceGap(n);
    expect(gap).toEqual({ low: 4n, high: 7n });
    expect(toAddressNoncesResponse(n, gap, [7n, 5n])).toMatchObject({
      possible_next_nonce: 9,
      detected_missing_nonces: [6, 4],
      detected_mempool_nonces: [7, 5],
    });
  });

  it('has no gap when the pending nonce follows the executed one, or one side is missing', () => {
    expect(nonceGap(row('3', '4'))).toBeNull();
    expect(nonceGap(row(null, '4'))).toBeNull();
    expect(nonceGap(row('3', null))).toBeNull();
  });

  it('bounds a gap to the 10,000 nonces above the last executed one', () => {
    expect(nonceGap(row('0', '1000000000'))).toEqual({ low: 1n, high: 10_000n });
  });
});
