import { describe, expect, it } from '@jest/globals';
import { toAddressTransactionUpdate, toNftEventResponse } from './live-payloads';

const A = 'SP000000000000000000002Q6VF78';
const B = 'SP1P72Z3704VMT3DMHPP2CB8TGQWGDBHD3RPR9GZS';

describe('live payload mappers', () => {
  it('counts what a transaction moved for the principal, the fee when it paid it, in BigInt', () => {
    const big = '340282366920938463463374607431768211455';
    const update = toAddressTransactionUpdate(
      { tx_id: '0x01' },
      A,
      [
        { type: 'stx_transfer_event', sender: A, recipient: B, amount: big },
        { type: 'stx_mint_event', sender: null, recipient: A, amount: '5' },
      ],
      { fee_rate: '180', sender_address: A, sponsor_address: null, sponsored: false },
    );
    expect(update).toEqual({
      tx: { tx_id: '0x01' },
      stx_sent: (BigInt(big) + 180n).toString(),
      stx_received: '5',
      stx_transfers: [
        { amount: big, sender: A, recipient: B },
        { amount: '5', recipient: A },
      ],
    });
    // A sponsored transaction's fee is the sponsor's.
    const sponsored = toAddressTransactionUpdate({}, A, [], {
      fee_rate: '10',
      sender_address: A,
      sponsor_address: B,
      sponsored: true,
    });
    expect(sponsored.stx_sent).toBe('0');
  });

  it('builds the reference NftEvent, without the parties an event lacks', () => {
    expect(
      toNftEventResponse({
        tx_id: '0x02',
        tx_index: 3,
        block_height: 9,
        event_index: 1,
        type: 'nft_mint_event',
        asset_identifier: `${A}.nft::token`,
        sender: null,
        recipient: B,
        value_hex: '0x0100000000000000000000000000000001',
        value_repr: 'u1',
      }),
    ).toEqual({
      asset_identifier: `${A}.nft::token`,
      asset_event_type: 'mint',
      value: { hex: '0x0100000000000000000000000000000001', repr: 'u1' },
      tx_id: '0x02',
      tx_index: 3,
      block_height: 9,
      event_index: 1,
      recipient: B,
    });
  });
});
