import { describe, expect, it } from '@jest/globals';
import { InputError } from '@bda/common';
import { parseTopic, rpcSubscribeResult, topicOfRpcParams } from './live-topics';

const ADDRESS = 'SP000000000000000000002Q6VF78';
const TX = `0x${'ab'.repeat(32)}`;
const ASSET = `${ADDRESS}.bns::names`;

describe('live topics', () => {
  it('parses the reference topics, normalizing what matching needs and keeping the client’s spelling as the name', () => {
    expect(parseTopic('block')).toEqual({ kind: 'block', key: 'block', name: 'block' });
    const upper = `transaction:${TX.toUpperCase().replace('0X', '')}`;
    expect(parseTopic(upper)).toEqual({ kind: 'transaction', txId: TX, key: `transaction:${TX}`, name: upper });
    expect(parseTopic(`address-stx-balance:${ADDRESS}`)).toMatchObject({
      principal: ADDRESS,
      key: `address-stx-balance:${ADDRESS}`,
    });
    expect(parseTopic(`nft-asset-event:${ASSET}+0x0C00`)).toMatchObject({
      asset: ASSET,
      value: '0x0c00',
      key: `nft-asset-event:${ASSET}+0x0c00`,
    });
    expect(parseTopic(`nft-collection-event:${ASSET}`)).toMatchObject({ asset: ASSET });
  });

  it.each([
    '',
    'blocks',
    'transaction:0x12',
    `address-transaction:${ADDRESS.toLowerCase()}`,
    `nft-asset-event:${ASSET}`,
    `nft-asset-event:${ASSET}+0x0`,
    `nft-collection-event:${ADDRESS}`,
    'x'.repeat(600),
  ])('refuses %j with an InputError', (raw) => {
    expect(() => parseTopic(raw)).toThrow(InputError);
  });

  it('maps JSON-RPC params to topics and answers what the reference client reads back', () => {
    expect(topicOfRpcParams({ event: 'tx_update', tx_id: TX }).key).toBe(`transaction:${TX}`);
    expect(topicOfRpcParams({ event: 'nft_event' }).key).toBe('nft-event');
    expect(rpcSubscribeResult(topicOfRpcParams({ event: 'address_tx_update', address: ADDRESS }))).toEqual({ address: ADDRESS });
    expect(rpcSubscribeResult(topicOfRpcParams({ event: 'nft_asset_event', asset_identifier: ASSET, value: '0x01' }))).toEqual({
      asset_identifier: ASSET,
      value: '0x01',
    });
    expect(rpcSubscribeResult(topicOfRpcParams({ event: 'block' }))).toEqual({});
    for (const bad of [null, [], { event: 'weather' }, { event: 'tx_update' }, { event: 'address_balance_update', address: 7 }]) {
      expect(() => topicOfRpcParams(bad)).toThrow(InputError);
    }
  });
});
