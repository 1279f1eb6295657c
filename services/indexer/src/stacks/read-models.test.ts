import { describe, expect, it } from '@jest/globals';
import { addressTxRows, ANCHORED_SEQUENCE } from './read-models';

const block = { index_block_hash: '0xb1', block_height: 7 };
const tx = (id: string, index: number, over: Partial<Parameters<typeof addressTxRows>[1][number]> = {}) => ({
  tx_id: id,
  tx_index: index,
  microblock_sequence: null,
  sender_address: null,
  sponsor_address: null,
  contract_id: null,
  recipient: null,
  status: 'success',
  ...over,
});
const event = (txId: string, over: Partial<Parameters<typeof addressTxRows>[2][number]> = {}) => ({
  tx_id: txId,
  type: 'stx_transfer_event',
  committed: true,
  sender: null,
  recipient: null,
  ...over,
});

describe('addressTxRows', () => {
  it('names each principal once per transaction: sender, sponsor, recipient, contract and STX event parties', () => {
    const rows = addressTxRows(
      block,
      [
        tx('0x01', 0, { sender_address: 'SP1', sponsor_address: 'SP2', recipient: 'SP3' }),
        tx('0x02', 1, { sender_address: 'SP1', contract_id: 'SP1.c', microblock_sequence: 4 }),
      ],
      [
        event('0x01', { sender: 'SP1', recipient: 'SP4' }),
        event('0x02', { type: 'stx_mint_event', recipient: 'SP5' }),
        event('0x02', { type: 'stx_burn_event', sender: 'SP6' }),
      ],
    );
    const view = rows.map((r) => `${r.address}@${r.tx_id}/${r.tx_index}/${r.microblock_sequence}`).sort();
    expect(view).toEqual([
      `SP1.c@0x02/1/4`,
      `SP1@0x01/0/${ANCHORED_SEQUENCE}`,
      `SP1@0x02/1/4`,
      `SP2@0x01/0/${ANCHORED_SEQUENCE}`,
      `SP3@0x01/0/${ANCHORED_SEQUENCE}`,
      `SP4@0x01/0/${ANCHORED_SEQUENCE}`,
      `SP5@0x02/1/4`,
      `SP6@0x02/1/4`,
    ]);
    expect(rows.every((r) => r.block_height === 7 && r.index_block_hash === '0xb1')).toBe(true);
  });

  it('leaves out the parties of token events and STX locks, as the reference API does', () => {
    const rows = addressTxRows(
      block,
      [tx('0x01', 0, { sender_address: 'SP1' })],
      [
        event('0x01', { type: 'ft_transfer_event', sender: 'SP1', recipient: 'SP7' }),
        event('0x01', { type: 'ft_mint_event', recipient: 'SP8' }),
        event('0x01', { type: 'nft_transfer_event', sender: 'SP1', recipient: 'SP9' }),
        event('0x01', { type: 'nft_burn_event', sender: 'SPA' }),
        event('0x01', { type: 'stx_lock_event' }),
        event('0x01', { type: 'contract_event' }),
      ],
    );
    expect(rows.map((r) => r.address)).toEqual(['SP1']);
  });

  it('ignores uncommitted events and events of transactions outside the block', () => {
    const rows = addressTxRows(
      block,
      [tx('0x01', 0)],
      [event('0x01', { sender: 'SP9', committed: false }), event('0xff', { recipient: 'SP8' })],
    );
    expect(rows).toEqual([]);
  });

  it('ignores the events of a transaction that did not succeed, keeping the principals the transaction names', () => {
    const rows = addressTxRows(
      block,
      [tx('0x01', 0, { sender_address: 'SP1', recipient: 'SP2', status: 'abort_by_response' })],
      [event('0x01', { sender: 'SP1', recipient: 'SP9' })],
    );
    expect(rows.map((r) => r.address).sort()).toEqual(['SP1', 'SP2']);
  });

  it('gives one row per principal and position when a malformed block repeats a tx_index', () => {
    const rows = addressTxRows(block, [tx('0x01', 3, { sender_address: 'SP1' }), tx('0x02', 3, { sender_address: 'SP1' })], []);
    expect(rows.map((r) => `${r.address}@${r.tx_id}/${r.tx_index}`)).toEqual(['SP1@0x01/3']);
  });
});
