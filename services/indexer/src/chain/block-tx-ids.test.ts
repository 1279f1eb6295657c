import { describe, expect, it } from '@jest/globals';
import { blockTxIdsRow } from './block-tx-ids';

const tx = (id: string, tx_index: number, microblock?: [string, number]) => ({
  tx_id: id,
  tx_index,
  microblock_hash: microblock?.[0] ?? null,
  microblock_sequence: microblock?.[1] ?? null,
});

describe('blockTxIdsRow', () => {
  it('lists anchored transactions first, then microblock ones from the newest microblock, each by position descending', () => {
    const row = blockTxIdsRow('0xb', [
      tx('m0a', 0, ['0xm0', 0]),
      tx('m0b', 1, ['0xm0', 0]),
      tx('m1a', 2, ['0xm1', 1]),
      tx('a0', 3),
      tx('a1', 4),
    ]);
    expect(row).toMatchObject({ index_block_hash: '0xb', tx_ids: '["a1","a0","m1a","m0b","m0a"]' });
    expect(JSON.parse(row!.microblock_tx_counts!)).toEqual({ '0xm0': 2, '0xm1': 1 });
  });

  it('counts a repeated id once, at its first row, and gives no row for a block without transactions', () => {
    expect(blockTxIdsRow('0xb', [tx('x', 0), tx('y', 1), tx('x', 2)])).toEqual({
      index_block_hash: '0xb',
      tx_ids: '["y","x"]',
      microblock_tx_counts: null,
    });
    expect(blockTxIdsRow('0xb', [])).toBeNull();
  });
});
