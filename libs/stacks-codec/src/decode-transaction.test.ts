import {
  Cl,
  Pc,
  PayloadType,
  addressHashModeToVersion,
  addressToString,
  cvToString,
  deserializeTransaction,
  makeContractCall,
  makeContractDeploy,
  makeSTXTokenTransfer,
  privateKeyToAddress,
  privateKeyToPublic,
  serializeCV,
  sponsorTransaction,
} from '@stacks/transactions';
import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { DecodeError } from './decode-error';
import { type DecodedTransaction, decodeTransaction, txIdFromBytes } from './decode-transaction';
import { isValidPrincipal, principalNetwork } from './principal';
import { fixtureTransactions } from './read-node-events.test-helper';

const rawTxs = fixtureTransactions().filter((t) => t.tx.raw_tx !== '0x00');

function decodedFixture(txid: string): DecodedTransaction {
  const found = rawTxs.find((t) => t.tx.txid === txid);
  if (!found) throw new Error(`fixture tx ${txid} not found`);
  return decodeTransaction(found.tx.raw_tx);
}

describe('decodeTransaction on every fixture raw_tx', () => {
  it('has transactions to decode', () => {
    expect(rawTxs.length).toBeGreaterThan(300);
  });

  it('decodes each one; the txid matches the node and the fields are sane', () => {
    let withNodeTxid = 0;
    for (const { tx, file } of rawTxs) {
      const d = decodeTransaction(tx.raw_tx);
      if (tx.txid) {
        expectMessage(`${file} ${tx.txid}`, () => expect(d.txId).toBe(tx.txid));
        withNodeTxid++;
      }
      expect(isValidPrincipal(d.senderAddress)).toBe(true);
      expect(principalNetwork(d.senderAddress)).toBe(d.version === 0 ? 'mainnet' : 'testnet');
      expect(d.nonce).toBeGreaterThanOrEqual(0n);
      expect(d.nonce).toBeLessThan(1_000_000n);
      expect(d.feeRate).toBeGreaterThanOrEqual(0n);
      expect(d.feeRate).toBeLessThan(1_000_000_000_000n); // < 1M STX
      expect([0, 1, 0x80000000]).toContain(d.chainId);
      expect(d.burnchain).toBeNull();
      expect(JSON.parse(JSON.stringify(d, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)))).toBeTruthy();
    }
    expect(withNodeTxid).toBeGreaterThan(250);
  });

  it('agrees with @stacks/transactions on sender, nonce, fee and payload', () => {
    for (const { tx } of rawTxs) {
      const d = decodeTransaction(tx.raw_tx);
      const lib = deserializeTransaction(tx.raw_tx.slice(2));
      const sc = lib.auth.spendingCondition;
      const network = lib.transactionVersion === 0 ? 'mainnet' : 'testnet';
      const version = addressHashModeToVersion(sc.hashMode, network);
      expect(d.senderAddress).toBe(addressToString({ type: 0, version, hash160: sc.signer }));
      expect(d.nonce).toBe(sc.nonce);
      expect(d.feeRate).toBe(sc.fee);
      expect(d.txId).toBe('0x' + lib.txid());
      const p = lib.payload;
      switch (p.payloadType) {
        case PayloadType.TokenTransfer:
          expect(d.payload).toMatchObject({ typeId: 'token_transfer', amount: p.amount, recipient: cvToString(p.recipient) });
          break;
        case PayloadType.ContractCall:
          expect(d.payload.typeId).toBe('contract_call');
          if (d.payload.typeId !== 'contract_call') break;
          expect(d.payload.functionName).toBe(p.functionName.content);
          // Same values; the reference API quotes principals ('SP…) where cvToString does not.
          expect(d.payload.functionArgs.map((a) => a.repr.replace(/'(S[0-9A-Z]+)/g, '$1'))).toEqual(
            p.functionArgs.map((a) => cvToString(a)),
          );
          break;
        case PayloadType.SmartContract:
        case PayloadType.VersionedSmartContract:
          expect(d.payload).toMatchObject({ typeId: 'smart_contract', sourceCode: p.codeBody.content });
          break;
        case PayloadType.TenureChange:
          expect(d.payload).toMatchObject({
            typeId: 'tenure_change',
            tenureConsensusHash: '0x' + p.tenureHash,
            previousTenureEnd: '0x' + p.previousTenureEnd,
            previousTenureBlocks: p.previousTenureBlocks,
          });
          break;
        default:
          expect(d.payload.typeId).toBe('coinbase');
      }
    }
  });

  it('matches each successful token transfer with its stx_transfer_event', () => {
    let checked = 0;
    for (const { tx, block } of rawTxs) {
      if (!block || tx.status !== 'success') continue;
      const d = decodeTransaction(tx.raw_tx);
      if (d.payload.typeId !== 'token_transfer' || d.payload.amount === 0n) continue;
      const ev = block.events.find((e: { txid: string; type: string }) => e.txid === tx.txid && e.type === 'stx_transfer_event');
      expect(ev.stx_transfer_event).toMatchObject({
        sender: d.senderAddress,
        recipient: d.payload.recipient,
        amount: d.payload.amount.toString(),
      });
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('covers every payload kind present in the fixtures', () => {
    const kinds = new Set(
      rawTxs.map(({ tx }) => {
        const p = decodeTransaction(tx.raw_tx).payload;
        if (p.typeId === 'coinbase') return `coinbase/${p.variant}`;
        if (p.typeId === 'smart_contract') return p.clarityVersion === null ? 'smart_contract' : 'smart_contract/versioned';
        return p.typeId;
      }),
    );
    expect([...kinds].sort()).toEqual([
      'coinbase/coinbase',
      'coinbase/coinbase_to_alt_recipient',
      'coinbase/nakamoto_coinbase',
      'contract_call',
      'smart_contract',
      'smart_contract/versioned',
      'tenure_change',
      'token_transfer',
    ]);
  });
});

describe('decodeTransaction spot checks (exact values)', () => {
  it('token transfer with a memo (mainnet)', () => {
    const d = decodedFixture('0x3a532f22d297a768265790b0d0133197e6fa4dcd03d6aacdd0dd06b2c6c79bb0');
    expect(d).toEqual({
      txId: '0x3a532f22d297a768265790b0d0133197e6fa4dcd03d6aacdd0dd06b2c6c79bb0',
      version: 0,
      chainId: 1,
      anchorMode: 'any',
      postConditionMode: 'deny',
      postConditions: [],
      authType: 'standard',
      originHashMode: 0,
      senderAddress: 'SP1SCZCYS2PPRJWCHFHCBATEXSC4N9NTYNAFN17YP',
      sponsorAddress: null,
      nonce: 0n,
      feeRate: 180n,
      sponsorNonce: null,
      payload: {
        typeId: 'token_transfer',
        recipient: 'SP2VNPVCQJ4NZYWQTTC0SR65ZPQ73S2RBBR3MESV5',
        amount: 100000n,
        memoHex: '0x55684f68' + '20' + '00'.repeat(29), // "UhOh "
      },
      burnchain: null,
    });
  });

  it('contract call to pox stack-stx', () => {
    const d = decodedFixture('0x61233be68853960bb30812a6692fa5713892a57dfa578d4009523c9e6b99fc7c');
    expect(d.senderAddress).toBe('SPBQKNWAK9MBRRCH3WDYC5V9C3RP9WYV903N7QPT');
    expect(d.feeRate).toBe(260n);
    expect(d.payload).toEqual({
      typeId: 'contract_call',
      contractId: 'SP000000000000000000002Q6VF78.pox',
      contractAddress: 'SP000000000000000000002Q6VF78',
      contractName: 'pox',
      functionName: 'stack-stx',
      functionArgs: [
        { hex: '0x0100000000000000000000003ad11640fc', repr: 'u252615999740', typeSignature: 'uint' },
        {
          hex: '0x0c000000020968617368627974657302000000149844a4c3fc6cfdd8a780d38a951a98fe357d8cf10776657273696f6e020000000101',
          repr: '(tuple (hashbytes 0x9844a4c3fc6cfdd8a780d38a951a98fe357d8cf1) (version 0x01))',
          typeSignature: '(tuple (hashbytes (buff 20)) (version (buff 1)))',
        },
        { hex: '0x01000000000000000000000000000a29d3', repr: 'u666067', typeSignature: 'uint' },
        { hex: '0x0100000000000000000000000000000001', repr: 'u1', typeSignature: 'uint' },
      ],
      functionArgsHex:
        '0x000000040100000000000000000000003ad11640fc0c000000020968617368627974657302000000149844a4c3fc6cfdd8a780d38a951a98fe357d8cf10776657273696f6e02000000010101000000000000000000000000000a29d30100000000000000000000000000000001',
    });
  });

  it('STX and NFT post conditions (contract principal)', () => {
    const d = decodedFixture('0x53a705e9a7338d7f4fef967f57f3ea0826f6398ddff4dcc641e4212dedf311a7');
    expect(d.postConditionMode).toBe('deny');
    expect(d.postConditions).toEqual([
      {
        type: 'stx',
        principal: { type_id: 'principal_standard', address: 'SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9' },
        condition_code: 'sent_less_than_or_equal_to',
        amount: '320000000',
      },
      {
        type: 'non_fungible',
        principal: {
          type_id: 'principal_contract',
          address: 'SPJW1XE278YMCEYMXB8ZFGJMH8ZVAAEDP2S2PJYG',
          contract_name: 'stacks-art-market',
        },
        condition_code: 'sent',
        asset: {
          contract_address: 'SPJW1XE278YMCEYMXB8ZFGJMH8ZVAAEDP2S2PJYG',
          contract_name: 'phases-of-satoshi',
          asset_name: 'phases-of-satoshi',
        },
        asset_value: { hex: '0x010000000000000000000000000000008f', repr: 'u143' },
      },
    ]);
    expect(d.payload).toMatchObject({ contractId: 'SPJW1XE278YMCEYMXB8ZFGJMH8ZVAAEDP2S2PJYG.stacks-art-market' });
  });

  it('fungible post condition', () => {
    const d = decodedFixture('0xeeca1df114c7c463040707392c47dad343624b55fbc4dfc6a85585dffd9393a7');
    expect(d.postConditions).toEqual([
      {
        type: 'fungible',
        principal: { type_id: 'principal_standard', address: 'SP4E5Y44W91JT8RH4MTAJXY7N9Z2QQ4BHD0C3NCZ' },
        condition_code: 'sent_equal_to',
        amount: '76850',
        asset: {
          contract_address: 'SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27',
          contract_name: 'miamicoin-token',
          asset_name: 'miamicoin',
        },
      },
    ]);
  });

  it('smart contract, original and versioned', () => {
    const v1 = decodedFixture('0xb874ddbb4a602c22bb5647c7a2f8bfcafbbca7c0c663a175f2270ef3665f33de');
    expect(v1.payload).toMatchObject({
      typeId: 'smart_contract',
      contractId: 'SP1K1A1PMGW2ZJCNF46NWZWHG8TS1D23EGH1KNK60.badges',
      contractName: 'badges',
      clarityVersion: null,
    });
    expect(v1.payload.typeId === 'smart_contract' && v1.payload.sourceCode).toMatch(
      /^\(define-non-fungible-token badge uint\)\n/,
    );
    const v2 = decodedFixture('0x1bede82377127966b54032fce154577f685b413d726a8638bc40abbed2cf2a51');
    expect(v2.payload).toMatchObject({
      typeId: 'smart_contract',
      contractId: 'ST000000000000000000002AMW42H.pox-2',
      clarityVersion: 2,
    });
  });

  it('coinbase, coinbase to an alt recipient, Nakamoto coinbase', () => {
    expect(decodedFixture('0x5d28dd47bcd92716de43161104129e242f168608d64f96b54303966611683086').payload).toEqual({
      typeId: 'coinbase',
      variant: 'coinbase',
      payloadHex: '0x' + Buffer.from('Forward the Foundation!').toString('hex') + '00'.repeat(9),
      altRecipient: null,
      vrfProofHex: null,
    });
    expect(decodedFixture('0x9f9b928c0a43354802d546f1edffba605a1f47e359b8cf28a53f7351891a3e47').payload).toEqual({
      typeId: 'coinbase',
      variant: 'coinbase_to_alt_recipient',
      payloadHex: '0x' + '00'.repeat(32),
      altRecipient: 'STQM73RQC4EX0A07KWG1J5ECZJYBZS4SJ4ERC6WN',
      vrfProofHex: null,
    });
    const nakamoto = decodedFixture('0x116ad06ea25e42cb0a2ac9ea76c549a948070a6c499db6d4611b54ce65339197');
    expect(nakamoto.payload).toEqual({
      typeId: 'coinbase',
      variant: 'nakamoto_coinbase',
      payloadHex: '0x' + '00'.repeat(32),
      altRecipient: 'STQM73RQC4EX0A07KWG1J5ECZJYBZS4SJ4ERC6WN',
      vrfProofHex:
        '0x23b191f5b089830f63e1dd8f9c79e64b132034bf2618a2a348050c85684f45543cec6d439f75fb76c86825bc3ac6fd6dce9ec36a1a5ab3957c2765b65526ee3247d3184c17e23f0be001330d1f975d02',
    });
    expect(nakamoto).toMatchObject({ anchorMode: 'on_chain_only', nonce: 20n, chainId: 0x80000000, version: 0x80 });
  });

  it('tenure change', () => {
    const d = decodedFixture('0x8076d56347e8eb76b21acd11237cf0ac695d1fa4201e3cbe4a6e23467ff9601e');
    expect(d.senderAddress).toBe('STEW4ZNT093ZHK4NEQKX8QJGM2Y7WWJ2FQQS5C19');
    expect(d.payload).toEqual({
      typeId: 'tenure_change',
      tenureConsensusHash: '0x20a01beaeb4a2fa3adc8f9df2b7d0c7604eea14f',
      prevTenureConsensusHash: '0x049bfb45ba4ac770d0bd4100fcd68a95806c6ec3',
      burnViewConsensusHash: '0x20a01beaeb4a2fa3adc8f9df2b7d0c7604eea14f',
      previousTenureEnd: '0xee2953659d1d202a3bb4b2848708152f027236c6a1281b80f62ecdff9bff91c6',
      previousTenureBlocks: 1,
      cause: 'block_found',
      pubkeyHash: '0xb6c8b1779e32f9468ff4ed56d0669a5943313ca2',
    });
  });
});

// Deterministic keys for constructed transactions (not secrets: test vectors only).
const KEY_A = 'edf9aee84d9b7abc145504dde6726c64f369d37ee34ded868fabd876c26570bc01';
const KEY_B = 'cb3df38053d132895220b9ce471f6b676db5b9bf0b4adefb55f2118ece2478df01';
const KEY_C = '9888d734e6e80a943a6544159e31d6c7e342f695ec867d549c569fa0028892d401';

describe('decodeTransaction on constructed transactions', () => {
  it('sponsored transaction: sponsor address, sponsor nonce, fee from the sponsor', async () => {
    const unsigned = await makeSTXTokenTransfer({
      recipient: 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC.my-vault',
      amount: 12345n,
      memo: 'hi',
      senderKey: KEY_A,
      network: 'testnet',
      fee: 0n,
      nonce: 7n,
      sponsored: true,
    });
    const tx = await sponsorTransaction({
      transaction: unsigned,
      sponsorPrivateKey: KEY_B,
      fee: 500n,
      sponsorNonce: 3n,
      network: 'testnet',
    });
    const d = decodeTransaction(tx.serialize());
    expect(d.txId).toBe('0x' + tx.txid());
    expect(d).toMatchObject({
      authType: 'sponsored',
      senderAddress: addressOf(KEY_A),
      sponsorAddress: addressOf(KEY_B),
      nonce: 7n,
      sponsorNonce: 3n,
      feeRate: 500n,
      version: 0x80,
      chainId: 0x80000000,
      payload: {
        typeId: 'token_transfer',
        recipient: 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC.my-vault',
        amount: 12345n,
        memoHex: '0x6869' + '00'.repeat(32),
      },
    });
  });

  it('multisig origin gives an SM address', async () => {
    const publicKeys = [KEY_A, KEY_B, KEY_C].map((k) => privateKeyToPublic(k) as string);
    const tx = await makeSTXTokenTransfer({
      recipient: 'SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9',
      amount: 1n,
      publicKeys,
      numSignatures: 2,
      signerKeys: [KEY_A, KEY_B],
      network: 'mainnet',
      fee: 1000n,
      nonce: 0n,
    });
    const lib = deserializeTransaction(tx.serialize());
    const d = decodeTransaction(tx.serialize());
    expect(d.originHashMode).toBe(0x01);
    expect(d.senderAddress).toMatch(/^SM/);
    expect(d.senderAddress).toBe(addressToString({ type: 0, version: 20, hash160: lib.auth.spendingCondition.signer }));
    expect(d.feeRate).toBe(1000n);
  });

  it('contract call with every post-condition kind, deploy with a Clarity version', async () => {
    const nftId = Cl.tuple({ name: Cl.bufferFromAscii('x'), namespace: Cl.bufferFromAscii('btc') });
    const call = await makeContractCall({
      contractAddress: 'SP000000000000000000002Q6VF78',
      contractName: 'bns',
      functionName: 'name-transfer',
      functionArgs: [Cl.bufferFromAscii('btc'), Cl.stringUtf8('caf\u00e9'), Cl.none(), Cl.list([Cl.int(-1)])],
      postConditions: [
        Pc.origin().willSendGte(10).ustx(),
        Pc.principal('SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9').willSendLt(5).ft('SP000000000000000000002Q6VF78.tok', 'coin'),
        Pc.principal('SP000000000000000000002Q6VF78.bns')
          .willNotSendAsset()
          .nft('SP000000000000000000002Q6VF78.bns::names', nftId),
      ],
      postConditionMode: 'allow',
      senderKey: KEY_C,
      network: 'mainnet',
      fee: 3n,
      nonce: 4n,
    });
    const d = decodeTransaction(call.serialize());
    expect(d.postConditionMode).toBe('allow');
    expect(d.postConditions).toEqual([
      {
        type: 'stx',
        principal: { type_id: 'principal_origin' },
        condition_code: 'sent_greater_than_or_equal_to',
        amount: '10',
      },
      {
        type: 'fungible',
        principal: { type_id: 'principal_standard', address: 'SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9' },
        condition_code: 'sent_less_than',
        amount: '5',
        asset: { contract_address: 'SP000000000000000000002Q6VF78', contract_name: 'tok', asset_name: 'coin' },
      },
      {
        type: 'non_fungible',
        principal: { type_id: 'principal_contract', address: 'SP000000000000000000002Q6VF78', contract_name: 'bns' },
        condition_code: 'not_sent',
        asset: { contract_address: 'SP000000000000000000002Q6VF78', contract_name: 'bns', asset_name: 'names' },
        asset_value: { hex: '0x' + serializeCV(nftId), repr: '(tuple (name 0x78) (namespace 0x627463))' },
      },
    ]);
    expect(d.payload.typeId === 'contract_call' && d.payload.functionArgs.map((a) => [a.repr, a.typeSignature])).toEqual([
      ['0x627463', '(buff 3)'],
      ['u"caf\\u{c3a9}"', '(string-utf8 16)'],
      ['none', '(optional UnknownType)'],
      ['(list -1)', '(list 1 int)'],
    ]);

    const deploy = await makeContractDeploy({
      contractName: 'hello-world',
      codeBody: '(define-read-only (hello) (ok "hi"))',
      clarityVersion: 3,
      senderKey: KEY_A,
      network: 'testnet',
      fee: 1n,
      nonce: 0n,
    });
    expect(decodeTransaction(deploy.serialize()).payload).toEqual({
      typeId: 'smart_contract',
      contractId: `${addressOf(KEY_A)}.hello-world`,
      contractName: 'hello-world',
      sourceCode: '(define-read-only (hello) (ok "hi"))',
      clarityVersion: 3,
    });
  });

  it('staking and pox post conditions, pox codes by the reference API names', async () => {
    const call = await makeContractCall({
      contractAddress: 'SP000000000000000000002Q6VF78',
      contractName: 'pox-5',
      functionName: 'unstake',
      functionArgs: [],
      postConditions: [
        Pc.origin().willSendLte(1000).ustxToLock(),
        Pc.origin().willNotPerformPox(),
        Pc.principal('SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9').mayPerformPox(),
        Pc.principal('SP000000000000000000002Q6VF78.pox-5').willPerformPox(),
      ],
      postConditionMode: 'deny',
      senderKey: KEY_C,
      network: 'mainnet',
      fee: 3n,
      nonce: 4n,
    });
    expect(decodeTransaction(call.serialize()).postConditions).toEqual([
      {
        type: 'staking',
        principal: { type_id: 'principal_origin' },
        condition_code: 'sent_less_than_or_equal_to',
        amount: '1000',
      },
      { type: 'pox', principal: { type_id: 'principal_origin' }, condition_code: 'not_performed' },
      {
        type: 'pox',
        principal: { type_id: 'principal_standard', address: 'SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9' },
        condition_code: 'maybe_performed',
      },
      {
        type: 'pox',
        principal: { type_id: 'principal_contract', address: 'SP000000000000000000002Q6VF78', contract_name: 'pox-5' },
        condition_code: 'performed',
      },
    ]);
  });

  it('poison microblock: both headers are read and returned', () => {
    const header = (seq: number, fill: string) =>
      '00' + seq.toString(16).padStart(4, '0') + fill.repeat(32) + 'ab'.repeat(32) + 'cd'.repeat(65);
    const h1 = header(1, '11');
    const h2 = header(1, '22');
    // mainnet, chain 1, standard single-sig P2PKH auth (signer 0x01…, nonce 9, fee 10), on-chain-only, deny, no PCs.
    const raw =
      '00' +
      '00000001' +
      '04' +
      '00' +
      '01'.repeat(20) +
      '0000000000000009' +
      '000000000000000a' +
      '00' +
      'ee'.repeat(65) +
      '01' +
      '02' +
      '00000000' +
      '03' +
      h1 +
      h2;
    const d = decodeTransaction(raw);
    expect(d.txId).toBe(txIdFromBytes(Buffer.from(raw, 'hex')));
    expect(d.nonce).toBe(9n);
    expect(d.payload).toEqual({
      typeId: 'poison_microblock',
      microblockHeader1Hex: '0x' + h1,
      microblockHeader2Hex: '0x' + h2,
      microblockHeader1: {
        version: 0,
        sequence: 1,
        prevBlock: '0x' + '11'.repeat(32),
        txMerkleRoot: '0x' + 'ab'.repeat(32),
        signature: '0x' + 'cd'.repeat(65),
      },
      microblockHeader2: {
        version: 0,
        sequence: 1,
        prevBlock: '0x' + '22'.repeat(32),
        txMerkleRoot: '0x' + 'ab'.repeat(32),
        signature: '0x' + 'cd'.repeat(65),
      },
    });
    expect(() => decodeTransaction(raw.slice(0, -2))).toThrow(DecodeError);
  });
});

/** Single-sig testnet address of a key, derived by @stacks/transactions (independently of this package). */
function addressOf(key: string): string {
  return privateKeyToAddress(key, 'testnet');
}

describe('decodeTransaction on malformed input', () => {
  const sample = rawTxs.slice(0, 40).map((t) => t.tx.raw_tx.slice(2));

  function expectDecodeError(hex: string): void {
    let thrown: unknown;
    try {
      decodeTransaction(hex);
    } catch (err) {
      thrown = err;
    }
    expectMessage(hex.slice(0, 80), () => expect(thrown).toBeInstanceOf(DecodeError));
  }

  it('rejects 0x00, empty, non-hex and odd-length input', () => {
    for (const bad of ['0x00', '0x', '', 'zz', '0x0', 'hello world', '0x80000000010']) expectDecodeError(bad);
  });

  it('rejects every truncation of real transactions', () => {
    for (const hex of sample.slice(0, 12)) {
      for (let len = 2; len < hex.length; len += hex.length > 4000 ? 50 : 2) expectDecodeError(hex.slice(0, len));
    }
  });

  it('rejects trailing bytes', () => {
    for (const hex of sample) expectDecodeError(hex + '00');
  });

  it('never throws anything but DecodeError on random garbage or flipped bytes', () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 2000; i++) {
      const len = Math.floor(rand() * 300);
      const bytes = Array.from({ length: len }, () => Math.floor(rand() * 256));
      if (i % 2 === 0 && len > 0) bytes[0] = rand() < 0.5 ? 0x00 : 0x80; // valid version, go deeper
      const hex = Buffer.from(bytes).toString('hex');
      try {
        decodeTransaction(hex);
      } catch (err) {
        expect(err).toBeInstanceOf(DecodeError);
      }
    }
    for (const hex of sample) {
      const bytes = Buffer.from(hex, 'hex');
      for (let i = 0; i < 30; i++) {
        const copy = Buffer.from(bytes);
        const at = Math.floor(rand() * copy.length);
        copy[at] = copy[at]! ^ (1 << Math.floor(rand() * 8));
        try {
          decodeTransaction(copy.toString('hex'));
        } catch (err) {
          expect(err).toBeInstanceOf(DecodeError);
        }
      }
    }
  });

  it('reports the failing offset', () => {
    const err = (() => {
      try {
        decodeTransaction('0x800000000104');
      } catch (e) {
        return e as DecodeError;
      }
    })();
    expect(err).toBeInstanceOf(DecodeError);
    expect(err?.offset).toBe(6);
    expect(err?.message).toMatch(/unexpected end of input reading origin hash mode/);
  });
});
