import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { Cl, type ClarityValue } from '@stacks/transactions';
import { b58ToC32 } from 'c32check';
import type { DbBnsName, DbBnsNamespace } from '@bda/db';
import { type BnsBlockInput, bnsBlockChanges } from '../src/bns/bns-changes';
import { toStacksAddress } from '../src/bns/bitcoin-address';
import { parseSubdomainRecords } from '../src/bns/zonefile-records';

const BNS = 'SP000000000000000000002Q6VF78.bns';
const OWNER = 'SP3R9402R2XB0WMG0BTEMZ5Q67QFJ7Y8YVJRQCJZN';
const OTHER = 'SP1HPCXTGV31W5659M3WTBEFP5AN55HV4B1Q9T31F';
const hex = (cv: ClarityValue) => `0x${Cl.serialize(cv)}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const hash160 = (s: string) => createHash('ripemd160').update(createHash('sha256').update(s).digest()).digest('hex');

function print(txId: string, eventIndex: number, op: string, hash: string, contract = BNS) {
  return {
    tx_id: txId,
    event_index: eventIndex,
    type: 'contract_event',
    committed: true,
    contract_identifier: contract,
    topic: 'print',
    asset_identifier: null,
    recipient: null,
    value_hex: hex(
      Cl.tuple({
        attachment: Cl.tuple({
          hash: Cl.bufferFromHex(hash),
          'attachment-index': Cl.uint(0),
          metadata: Cl.tuple({
            name: Cl.bufferFromAscii('alice'),
            namespace: Cl.bufferFromAscii('btc'),
            'tx-sender': Cl.standardPrincipal(OWNER),
            op: Cl.stringAscii(op),
          }),
        }),
      }),
    ),
  };
}

const tx = (txId: string, txIndex: number, status = 'success', payload: unknown = null) => ({
  tx_id: txId,
  tx_index: txIndex,
  status,
  sender_address: OWNER,
  contract_id: BNS,
  payload,
});

const block = (txs: BnsBlockInput['txs'], events: BnsBlockInput['events']): BnsBlockInput => ({
  index_block_hash: '0xb1',
  block_height: 100,
  txs,
  events,
});

const registered: DbBnsName = {
  fqn: 'alice.btc',
  name: 'alice',
  namespace_id: 'btc',
  address: OWNER,
  zonefile_hash: 'aa'.repeat(20),
  sets_zonefile: true,
  registered_at: 50,
  imported_at: null,
  revoked: false,
  status: 'name-register',
  tx_id: '0xt0',
  block_height: 50,
  tx_index: 0,
  event_index: 1,
  index_block_hash: '0xb0',
};
const prior = (name?: DbBnsName, namespace?: DbBnsNamespace) => ({
  name: (fqn: string) => (fqn === name?.fqn ? name : undefined),
  namespace: (id: string) => (id === namespace?.namespace_id ? namespace : undefined),
});

describe('bnsBlockChanges', () => {
  it('ignores failed transactions, uncommitted events and prints of other contracts', () => {
    const changes = bnsBlockChanges(
      block(
        [tx('0x01', 0, 'abort_by_response'), tx('0x02', 1), tx('0x03', 2)],
        [
          print('0x01', 0, 'name-update', 'bb'.repeat(20)),
          { ...print('0x02', 1, 'name-update', 'bb'.repeat(20)), committed: false },
          print('0x03', 2, 'name-update', 'bb'.repeat(20), 'SP3R9402R2XB0WMG0BTEMZ5Q67QFJ7Y8YVJRQCJZN.bns'),
        ],
      ),
      prior(registered),
    );
    expect(changes).toEqual({ names: [], namespaces: [] });
  });

  it('moves the owner with the NFT and clears the zonefile with a transfer printing 0x', () => {
    const changes = bnsBlockChanges(
      block(
        [tx('0x04', 3)],
        [
          {
            tx_id: '0x04',
            event_index: 7,
            type: 'nft_transfer_event',
            committed: true,
            contract_identifier: null,
            topic: null,
            asset_identifier: `${BNS}::names`,
            recipient: OTHER,
            value_hex: hex(Cl.tuple({ name: Cl.bufferFromAscii('alice'), namespace: Cl.bufferFromAscii('btc') })),
          },
          print('0x04', 8, 'name-transfer', ''),
        ],
      ),
      prior(registered),
    );
    const position = { tx_id: '0x04', block_height: 100, tx_index: 3, index_block_hash: '0xb1' };
    expect(changes.names).toEqual([
      { ...registered, ...position, event_index: 7, address: OTHER, sets_zonefile: false },
      {
        ...registered,
        ...position,
        event_index: 8,
        address: OTHER,
        zonefile_hash: '',
        sets_zonefile: false,
        status: 'name-transfer',
      },
    ]);
  });

  it('starts a new lease for a renewal without zonefile (a call that prints nothing), not for a failed one', () => {
    const args = [Cl.bufferFromAscii('btc'), Cl.bufferFromAscii('alice'), Cl.uint(5), Cl.none(), Cl.none()];
    const payload = JSON.stringify({ function_name: 'name-renewal', function_args: args.map((a) => ({ hex: hex(a) })) });
    const changes = bnsBlockChanges(
      block([tx('0x05', 0, 'success', payload), tx('0x06', 1, 'abort_by_response', payload)], []),
      prior(registered),
    );
    expect(changes.names).toEqual([
      {
        ...registered,
        registered_at: 100,
        status: 'name-renewal',
        sets_zonefile: false,
        tx_id: '0x05',
        block_height: 100,
        tx_index: 0,
        event_index: -1,
        index_block_hash: '0xb1',
      },
    ]);
  });

  it('replaces a ready namespace’s price function on namespace-update-function-price', () => {
    const ns: DbBnsNamespace = {
      namespace_id: 'btc',
      address: OWNER,
      revealed_at: 10,
      launched_at: 11,
      lifetime: '0',
      buckets: Array(16).fill('1').join(';'),
      base: '1',
      coeff: '1',
      nonalpha_discount: '1',
      no_vowel_discount: '1',
      can_update_price_function: true,
      status: 'ready',
      tx_id: '0xt',
      block_height: 11,
      tx_index: 0,
      event_index: 0,
      index_block_hash: '0xb0',
    };
    const values = [2, 3, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 4, 5];
    const args = [Cl.bufferFromAscii('btc'), ...values.map((v) => Cl.uint(v))];
    const payload = { function_name: 'namespace-update-function-price', function_args: args.map((a) => ({ hex: hex(a) })) };
    const changes = bnsBlockChanges(block([tx('0x07', 0, 'success', payload)], []), prior(undefined, ns));
    expect(changes.namespaces).toEqual([
      {
        ...ns,
        base: '2',
        coeff: '3',
        buckets: '16;15;14;13;12;11;10;9;8;7;6;5;4;3;2;1',
        nonalpha_discount: '4',
        no_vowel_discount: '5',
        tx_id: '0x07',
        block_height: 100,
        tx_index: 0,
        event_index: -1,
        index_block_hash: '0xb1',
      },
    ]);
  });
});

describe('toStacksAddress', () => {
  it('converts Bitcoin p2pkh and p2sh addresses as c32check does, keeps Stacks addresses, refuses the rest', () => {
    for (const btc of [
      '158hjd59vxSetAiTTjzty4z7oNFVVdY3ca',
      '13veta52Ct9cvjAneE3wWErhfHV9TiDWH3',
      '3QyXgycXRXXqsXU3xoZ2NXLsUEevRzBgFz',
    ]) {
      expect(toStacksAddress(btc)).toBe(b58ToC32(btc));
    }
    expect(toStacksAddress('3QyXgycXRXXqsXU3xoZ2NXLsUEevRzBgFz')).toMatch(/^SM/);
    expect(toStacksAddress(OWNER)).toBe(OWNER);
    expect(toStacksAddress('158hjd59vxSetAiTTjzty4z7oNFVVdY3cb')).toBeNull(); // checksum broken
    expect(toStacksAddress('not an address')).toBeNull();
    expect(toStacksAddress('')).toBeNull();
  });
});

describe('parseSubdomainRecords', () => {
  it('reads owner, seqn and the zonefile from its parts; skips incomplete records; keeps a repeated label’s first', () => {
    const zf = '$ORIGIN bob\n$TTL 3600\n_https._tcp URI 10 1 "https://example.com/bob.json"\n';
    const encoded = b64(zf);
    const text = [
      '$ORIGIN carol.id',
      `bob TXT "owner=158hjd59vxSetAiTTjzty4z7oNFVVdY3ca" "seqn=3" "parts=2" "zf0=${encoded.slice(0, 8)}" "zf1=${encoded.slice(8)}"`,
      `bob TXT "owner=${OTHER}" "seqn=9" "parts=1" "zf0=${encoded}"`,
      `nozf TXT "owner=${OTHER}" "seqn=0" "parts=2" "zf0=${encoded}"`,
      `badseqn TXT "owner=${OTHER}" "seqn=x" "parts=1" "zf0=${encoded}"`,
      `badowner TXT "owner=nobody" "seqn=0" "parts=1" "zf0=${encoded}"`,
      `Upper TXT "owner=${OTHER}" "seqn=1" "parts=1" "zf0=${encoded}"`,
      '',
    ].join('\n');
    expect(parseSubdomainRecords(text)).toEqual([
      {
        label: 'bob',
        owner: b58ToC32('158hjd59vxSetAiTTjzty4z7oNFVVdY3ca'),
        seqn: 3n,
        zonefile: zf,
        zonefileHash: hash160(zf),
        index: 0,
      },
      { label: 'upper', owner: OTHER, seqn: 1n, zonefile: zf, zonefileHash: hash160(zf), index: 1 },
    ]);
  });
});
