import { Cl, serializeCV } from '@stacks/transactions';
import { describe, expect, it } from '@jest/globals';
import { decodeClarityValueList } from './clarity-value';
import { DecodeError } from './decode-error';
import { decodeStacksAddress } from './principal';
import { parsePoxAddress } from './pox-address';
import { type NodeEvent, synthesizeBurnchainTransaction } from './synthesize-burnchain-tx';

// Shapes below follow the node's documented `burnchain_op` JSON (stacks-core event dispatcher) field by field.
const SENDER = {
  address: 'ST2QKZ4FKHAH1NQKYKYAYZPY440FEPK7GZ1R5HBP2',
  address_hash_bytes: '0xaf3f91f38aa21ade7e9f95efdbc4201eeb4cf0f8',
  address_version: 26,
};
const RECIPIENT = {
  address: 'SP24ZBZ8ZE6F48JE9G3F3HRTG9FK7E2H6K2QZ3Q1K',
  address_hash_bytes: '0x89f5fd1f719e4449c980de38e3504be6770a2698',
  address_version: 22,
};
const TXID = '0x85aa2106186723f3c4f1d8bb58e3a02746ca9be1be9f4be0c6557079e1f660e6';
const BURN_HASH = '1010101010101010101010101010101010101010101010101010101010101010';
const P2PKH_ONES = '16Jswqk47s9PUcyCc88MMVwzgvHPvtEpf'; // version 0x00, hash 0x0101…01
const TAPROOT = 'tb1pf4x64urhdsdmadxxhv2wwjv6e3evy59auu2xaauu3vz3adxtskfschm453';

function contractEvent(txid: string, contractId: string, value: Parameters<typeof serializeCV>[0]): NodeEvent {
  return {
    txid,
    type: 'contract_event',
    event_index: 1,
    committed: true,
    contract_event: { contract_identifier: contractId, topic: 'print', raw_value: '0x' + serializeCV(value) },
  };
}

function reprs(tx: ReturnType<typeof synthesizeBurnchainTransaction>): string[] {
  if (tx.payload.typeId !== 'contract_call') throw new Error(`expected a contract call, got ${tx.payload.typeId}`);
  // The argument buffer must describe the same values as the decoded argument list.
  expect(decodeClarityValueList(tx.payload.functionArgsHex)).toEqual(tx.payload.functionArgs);
  return tx.payload.functionArgs.map((a) => a.repr);
}

/** A `raw_tx` 0x00 transaction carrying a `transfer_stx` burnchain operation from SENDER to RECIPIENT. */
function transferStxTx(op: { memo: string; transfered_ustx: number | string }) {
  return {
    txid: TXID,
    raw_tx: '0x00',
    raw_result: '0x0703',
    burnchain_op: {
      transfer_stx: {
        burn_block_height: 10,
        burn_header_hash: BURN_HASH,
        recipient: RECIPIENT,
        sender: SENDER,
        burn_txid: TXID.slice(2),
        vtxindex: 10,
        ...op,
      },
    },
  };
}

describe('synthesizeBurnchainTransaction from burnchain_op', () => {
  it('keeps a u64 amount exact when it arrives as a decimal string (how the bus decodes numbers beyond 2^53)', () => {
    const tx = transferStxTx({ memo: '0x', transfered_ustx: '18446744073709551615' });
    const decoded = synthesizeBurnchainTransaction({ tx, events: [] });
    expect(decoded.payload).toMatchObject({ typeId: 'token_transfer', amount: 18446744073709551615n });
  });

  it('transfer_stx → token_transfer', () => {
    const tx = transferStxTx({ memo: '0x000102030405', transfered_ustx: 10 });
    const events: NodeEvent[] = [
      {
        txid: '0x' + 'ab'.repeat(32),
        type: 'stx_transfer_event',
        stx_transfer_event: { sender: RECIPIENT.address, recipient: SENDER.address, amount: '999' },
      },
      {
        txid: TXID,
        type: 'stx_transfer_event',
        stx_transfer_event: { sender: SENDER.address, recipient: RECIPIENT.address, amount: '10' },
      },
    ];
    expect(synthesizeBurnchainTransaction({ tx, events })).toEqual({
      txId: TXID,
      version: 0x80,
      chainId: 0x80000000,
      anchorMode: 'any',
      postConditionMode: 'allow',
      postConditions: [],
      authType: 'standard',
      originHashMode: 0,
      senderAddress: SENDER.address,
      sponsorAddress: null,
      nonce: 0n,
      feeRate: 0n,
      sponsorNonce: null,
      payload: { typeId: 'token_transfer', recipient: RECIPIENT.address, amount: 10n, memoHex: '0x000102030405' },
      burnchain: { op: 'transfer_stx', burnTxid: TXID.slice(2), burnBlockHeight: 10, vtxindex: 10 },
    });
  });

  it('stack_stx on pox-4 → stack-stx with the signer arguments', () => {
    const stacker = 'ST1Z7V02CJRY3G5R2RDG7SFAZA8VGH0Y44NC2NAJN';
    const signerKey = '033b67384665cbc3a36052a2d1c739a6cd1222cd451c499400c9d42e2041a56161';
    const tx = {
      txid: '0x' + 'e5d9aa62315aadfe670a0180fa3687852830f50152461bfd393a1298add88842',
      burnchain_op: {
        stack_stx: {
          auth_id: 123456789,
          burn_block_height: 121,
          burn_header_hash: '71b87d20a688d5a23dc2915cd0cff2dd019f81801717a230caf58ee5fae6faf0',
          burn_txid: 'e5d9aa62315aadfe670a0180fa3687852830f50152461bfd393a1298add88842',
          max_amount: 4500432000000000,
          num_cycles: 6,
          reward_addr: TAPROOT,
          sender: { address: stacker, address_hash_bytes: '0x7e7d804c963c381702c3607cbd5f52370883c425', address_version: 26 },
          signer_key: signerKey,
          stacked_ustx: 4500432000000000,
          vtxindex: 3,
        },
      },
    };
    const events: NodeEvent[] = [
      {
        txid: tx.txid,
        type: 'stx_lock_event',
        stx_lock_event: {
          locked_amount: '4500432000000000',
          unlock_height: '250',
          locked_address: stacker,
          contract_identifier: 'ST000000000000000000002AMW42H.pox-4',
        },
      },
    ];
    const d = synthesizeBurnchainTransaction({ tx, events });
    expect(d.senderAddress).toBe(stacker);
    expect(d.payload).toMatchObject({ contractId: 'ST000000000000000000002AMW42H.pox-4', functionName: 'stack-stx' });
    const taprootKey = Buffer.from(parsePoxAddress(TAPROOT).hashbytes).toString('hex');
    expect(reprs(d)).toEqual([
      'u4500432000000000',
      `(tuple (hashbytes 0x${taprootKey}) (version 0x06))`,
      'u121',
      'u6',
      'none',
      `0x${signerKey}`,
      'u4500432000000000',
      'u123456789',
    ]);
    expect(d.burnchain).toEqual({ op: 'stack_stx', burnTxid: tx.txid.slice(2), burnBlockHeight: 121, vtxindex: 3 });
  });

  it('stack_stx before pox-4 → 4-argument stack-stx on the contract of the lock event', () => {
    const tx = {
      txid: '0x' + '0a'.repeat(32),
      burnchain_op: {
        stack_stx: {
          burn_block_height: 10,
          burn_header_hash: BURN_HASH,
          num_cycles: 10,
          reward_addr: P2PKH_ONES,
          sender: SENDER,
          stacked_ustx: 10,
          burn_txid: '0a'.repeat(32),
          vtxindex: 10,
          signer_key: null,
          max_amount: null,
          auth_id: null,
        },
      },
    };
    const events: NodeEvent[] = [
      {
        txid: tx.txid,
        type: 'stx_lock_event',
        stx_lock_event: {
          locked_amount: '10',
          unlock_height: '60',
          locked_address: SENDER.address,
          contract_identifier: 'ST000000000000000000002AMW42H.pox-2',
        },
      },
    ];
    const d = synthesizeBurnchainTransaction({ tx, events });
    expect(d.payload).toMatchObject({ contractId: 'ST000000000000000000002AMW42H.pox-2', functionName: 'stack-stx' });
    expect(reprs(d)).toEqual(['u10', `(tuple (hashbytes 0x${'01'.repeat(20)}) (version 0x00))`, 'u10', 'u10']);
  });

  it('delegate_stx → delegate-stx (optional until-height and reward address)', () => {
    const body = {
      burn_block_height: 10,
      burn_header_hash: BURN_HASH,
      delegate_to: RECIPIENT,
      delegated_ustx: 10,
      sender: SENDER,
      reward_addr: [10, P2PKH_ONES],
      burn_txid: '0a'.repeat(32),
      until_burn_height: null,
      vtxindex: 10,
    };
    const txid = '0x' + '0a'.repeat(32);
    const d = synthesizeBurnchainTransaction({ tx: { txid, burnchain_op: { delegate_stx: body } }, poxContractName: 'pox-3' });
    expect(d.senderAddress).toBe(SENDER.address);
    expect(d.payload).toMatchObject({ contractId: 'ST000000000000000000002AMW42H.pox-3', functionName: 'delegate-stx' });
    expect(reprs(d)).toEqual([
      'u10',
      `'${RECIPIENT.address}`,
      'none',
      `(some (tuple (hashbytes 0x${'01'.repeat(20)}) (version 0x00)))`,
    ]);

    // With an until-height, no reward address, and the PoX contract told by the print event.
    const print = contractEvent(
      txid,
      'ST000000000000000000002AMW42H.pox-4',
      Cl.ok(Cl.tuple({ name: Cl.stringAscii('delegate-stx'), stacker: Cl.principal(SENDER.address), data: Cl.tuple({}) })),
    );
    const d2 = synthesizeBurnchainTransaction({
      tx: { txid, burnchain_op: { delegate_stx: { ...body, until_burn_height: 200, reward_addr: null } } },
      events: [print],
    });
    expect(d2.payload).toMatchObject({ contractId: 'ST000000000000000000002AMW42H.pox-4' });
    expect(reprs(d2)).toEqual(['u10', `'${RECIPIENT.address}`, '(some u200)', 'none']);
  });

  it('vote_for_aggregate_key → signers-voting.vote-for-aggregate-public-key', () => {
    const key = '02' + '11'.repeat(32);
    const d = synthesizeBurnchainTransaction({
      tx: {
        txid: '0x' + '0b'.repeat(32),
        burnchain_op: {
          vote_for_aggregate_key: {
            burn_block_height: 10,
            burn_header_hash: BURN_HASH,
            aggregate_key: '0x' + key,
            reward_cycle: 11,
            round: 2,
            sender: SENDER,
            signer_index: 3,
            signer_key: '03' + '22'.repeat(32),
            burn_txid: '0b'.repeat(32),
            vtxindex: 10,
          },
        },
      },
    });
    expect(d.payload).toMatchObject({
      contractId: 'ST000000000000000000002AMW42H.signers-voting',
      functionName: 'vote-for-aggregate-public-key',
    });
    expect(reprs(d)).toEqual(['u3', `0x${key}`, 'u2', 'u11']);
  });

  it('uses the given chain id', () => {
    const tx = {
      txid: TXID,
      burnchain_op: { transfer_stx: { sender: SENDER, recipient: SENDER, transfered_ustx: 1, memo: '0x' } },
    };
    expect(synthesizeBurnchainTransaction({ tx, chainId: 0x80000003 })).toMatchObject({ chainId: 0x80000003, version: 0x80 });
  });
});

describe('synthesizeBurnchainTransaction from events only (nodes without burnchain_op)', () => {
  const mainnetStacker = 'SPBQKNWAK9MBRRCH3WDYC5V9C3RP9WYV903N7QPT';

  it('stx_transfer_event → token_transfer', () => {
    const d = synthesizeBurnchainTransaction({
      tx: { txid: TXID, raw_result: '0x0703' },
      events: [
        {
          txid: TXID,
          type: 'stx_transfer_event',
          stx_transfer_event: { sender: mainnetStacker, recipient: RECIPIENT.address, amount: '1000' },
        },
      ],
    });
    expect(d).toMatchObject({
      version: 0,
      chainId: 1,
      senderAddress: mainnetStacker,
      payload: { typeId: 'token_transfer', recipient: RECIPIENT.address, amount: 1000n, memoHex: '0x' },
      burnchain: { op: 'events', burnTxid: null },
    });
  });

  it('stx_lock_event alone → pox stack-stx with a computed lock period and the stacker as reward address', () => {
    const d = synthesizeBurnchainTransaction({
      tx: {
        txid: TXID,
        raw_result:
          '0x07' +
          serializeCV(
            Cl.tuple({
              'lock-amount': Cl.uint(5000),
              stacker: Cl.principal(mainnetStacker),
              'unlock-burn-height': Cl.uint(670250),
            }),
          ),
      },
      events: [
        {
          txid: TXID,
          type: 'stx_lock_event',
          stx_lock_event: { locked_amount: '5000', unlock_height: '670250', locked_address: mainnetStacker },
        },
      ],
      burnBlockHeight: 666050,
    });
    expect(d.payload).toMatchObject({ contractId: 'SP000000000000000000002Q6VF78.pox', functionName: 'stack-stx' });
    const { hash160 } = decodeStacksAddress(mainnetStacker);
    expect(reprs(d)).toEqual(['u5000', `(tuple (hashbytes 0x${hash160}) (version 0x00))`, 'u666050', 'u2']);
  });

  it('stx_lock_event with the pox print event → its reward address, start height and period', () => {
    const poxAddr = Cl.tuple({ version: Cl.buffer(Uint8Array.of(1)), hashbytes: Cl.buffer(new Uint8Array(20).fill(7)) });
    const print = contractEvent(
      TXID,
      'SP000000000000000000002Q6VF78.pox-2',
      Cl.ok(
        Cl.tuple({
          name: Cl.stringAscii('stack-stx'),
          stacker: Cl.principal(mainnetStacker),
          balance: Cl.uint(1),
          data: Cl.tuple({
            'lock-amount': Cl.uint(77),
            'lock-period': Cl.uint(3),
            'pox-addr': poxAddr,
            'start-burn-height': Cl.uint(700001),
            'unlock-burn-height': Cl.uint(706300),
          }),
        }),
      ),
    );
    const d = synthesizeBurnchainTransaction({
      tx: { txid: TXID },
      events: [
        print,
        {
          txid: TXID,
          type: 'stx_lock_event',
          stx_lock_event: {
            locked_amount: '77',
            unlock_height: '706300',
            locked_address: mainnetStacker,
            contract_identifier: 'SP000000000000000000002Q6VF78.pox-2',
          },
        },
      ],
      burnBlockHeight: 700001,
    });
    expect(d.payload).toMatchObject({ contractId: 'SP000000000000000000002Q6VF78.pox-2' });
    expect(reprs(d)).toEqual(['u77', `(tuple (hashbytes 0x${'07'.repeat(20)}) (version 0x01))`, 'u700001', 'u3']);
  });

  it('pox delegate-stx print event → delegate-stx from its data', () => {
    const print = contractEvent(
      TXID,
      'SP000000000000000000002Q6VF78.pox-3',
      Cl.ok(
        Cl.tuple({
          name: Cl.stringAscii('delegate-stx'),
          stacker: Cl.principal(mainnetStacker),
          data: Cl.tuple({
            'amount-ustx': Cl.uint(42),
            'delegate-to': Cl.principal(RECIPIENT.address),
            'unlock-burn-height': Cl.some(Cl.uint(800000)),
            'pox-addr': Cl.none(),
          }),
        }),
      ),
    );
    const d = synthesizeBurnchainTransaction({ tx: { txid: TXID }, events: [print] });
    expect(d.senderAddress).toBe(mainnetStacker);
    expect(d.payload).toMatchObject({ contractId: 'SP000000000000000000002Q6VF78.pox-3', functionName: 'delegate-stx' });
    expect(reprs(d)).toEqual(['u42', `'${RECIPIENT.address}`, '(some u800000)', 'none']);
  });
});

describe('synthesizeBurnchainTransaction failures are DecodeError', () => {
  const cases: [string, Parameters<typeof synthesizeBurnchainTransaction>[0], RegExp][] = [
    ['pre_stx', { tx: { txid: TXID, burnchain_op: { pre_stx: { output: SENDER, burn_txid: '00' } } } }, /pre_stx/],
    ['unknown op, no events', { tx: { txid: TXID, burnchain_op: { register_asset: {} } } }, /register_asset/],
    [
      'no op, only events of another tx',
      {
        tx: { txid: TXID },
        events: [
          {
            txid: '0x' + '00'.repeat(32),
            type: 'stx_transfer_event',
            stx_transfer_event: { sender: SENDER.address, recipient: SENDER.address, amount: '1' },
          },
        ],
      },
      /no supported/,
    ],
    ['bad txid', { tx: { txid: 'nope' } }, /txid/],
    [
      'bad sender',
      {
        tx: {
          txid: TXID,
          burnchain_op: { transfer_stx: { sender: { address: 'ST123' }, recipient: SENDER, transfered_ustx: 1 } },
        },
      },
      /sender/,
    ],
    [
      'negative amount',
      { tx: { txid: TXID, burnchain_op: { transfer_stx: { sender: SENDER, recipient: SENDER, transfered_ustx: -1 } } } },
      /transfered_ustx/,
    ],
    [
      'bad reward address',
      {
        tx: {
          txid: TXID,
          burnchain_op: {
            stack_stx: { sender: SENDER, reward_addr: 'xyz', stacked_ustx: 1, num_cycles: 1, burn_block_height: 1 },
          },
        },
      },
      /PoX address/,
    ],
    [
      'lock event without a burn height',
      {
        tx: { txid: TXID },
        events: [
          {
            txid: TXID,
            type: 'stx_lock_event',
            stx_lock_event: { locked_amount: '1', unlock_height: '9', locked_address: SENDER.address },
          },
        ],
      },
      /burn block height/,
    ],
  ];
  for (const [name, input, message] of cases) {
    it(name, () => {
      expect(() => synthesizeBurnchainTransaction(input)).toThrow(DecodeError);
      expect(() => synthesizeBurnchainTransaction(input)).toThrow(message);
    });
  }
});
