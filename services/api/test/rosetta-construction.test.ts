import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import { privateKeyToPublic, signMessageHashRsv, uncompressPublicKey } from '@stacks/transactions';
import { decodeTransaction, encodeStacksAddress, StacksAddressVersion } from '@bda/stacks-codec';
import { startRosettaApi, type RosettaApi } from './support/rosetta-api';
import { rosettaPost } from './support/rosetta-schemas';
import { startStubNode, type StubNode } from './support/rosetta-stub-node';

// A fixed test key (never used on a real network) and a recipient.
const PRIVATE_KEY = 'edf9aee84d9b7abc145504dde6726c64f369d37ee34ded868fabd876c26570bc01';
const PUBLIC_KEY = privateKeyToPublic(PRIVATE_KEY) as string;
const RECIPIENT = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
const NETWORK = { blockchain: 'stacks', network: 'testnet' };
const STX = { symbol: 'STX', decimals: 6 };

/** The sender address computed here from the key: version 26 (ST) over RIPEMD-160(SHA-256(key)). */
const SENDER = encodeStacksAddress(
  StacksAddressVersion.TestnetSingleSig,
  createHash('ripemd160')
    .update(createHash('sha256').update(Buffer.from(PUBLIC_KEY, 'hex')).digest())
    .digest('hex'),
);

const intent = (amount: string) => [
  {
    operation_identifier: { index: 0 },
    type: 'token_transfer',
    account: { address: SENDER },
    amount: { value: `-${amount}`, currency: STX },
  },
  {
    operation_identifier: { index: 1 },
    type: 'token_transfer',
    account: { address: RECIPIENT },
    amount: { value: amount, currency: STX },
  },
];
const publicKey = (hex = PUBLIC_KEY) => ({ hex_bytes: hex, curve_type: 'secp256k1' });

function rsvSignature(hash: string): string {
  return signMessageHashRsv({ messageHash: hash, privateKey: PRIVATE_KEY });
}

describe('Rosetta Construction API', () => {
  let online: RosettaApi;
  let offline: RosettaApi;
  let node: StubNode;
  const on = (path: string, body: unknown) => rosettaPost(online.baseUrl, path, body);
  const off = (path: string, body: unknown) => rosettaPost(offline.baseUrl, path, body);

  beforeAll(async () => {
    node = await startStubNode({ nonce: 7, feeRate: 2 });
    online = await startRosettaApi(testInfra().databaseUrl, {
      offline: false,
      network: 'testnet',
      nodeRpcUrls: [node.url],
      nodeTimeoutMs: 5_000,
    });
    offline = await startRosettaApi(null, { offline: true, network: 'testnet', nodeRpcUrls: [], nodeTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await online?.close();
    await offline?.close();
    await node?.close();
  });

  it('derives, preprocesses, fetches metadata, builds, signs, combines, parses, hashes and submits a transfer', async () => {
    const derive = await on('/construction/derive', { network_identifier: NETWORK, public_key: publicKey() });
    expect(derive.body).toEqual({ account_identifier: { address: SENDER } });

    const pre = await on('/construction/preprocess', { network_identifier: NETWORK, operations: intent('12345') });
    expect(pre.body.required_public_keys).toEqual([{ address: SENDER }]);

    const meta = await on('/construction/metadata', {
      network_identifier: NETWORK,
      options: pre.body.options,
      public_keys: [publicKey()],
    });
    expect(meta.status).toBe(200);
    // Nonce from the node; fee = its rate (2 µSTX/byte) × the 180 bytes of a single-signature transfer.
    expect(meta.body.metadata).toMatchObject({ nonce: '7', fee: '360' });
    expect(meta.body.suggested_fee).toEqual([{ value: '360', currency: STX }]);
    expect(node.requests).toEqual([`GET /v2/accounts/${SENDER}?proof=0`, 'GET /v2/fees/transfer']);

    const payloads = await on('/construction/payloads', {
      network_identifier: NETWORK,
      operations: intent('12345'),
      metadata: meta.body.metadata,
      public_keys: [publicKey()],
    });
    expect(payloads.body.payloads).toHaveLength(1);
    const payload = payloads.body.payloads[0];
    expect(payload).toMatchObject({ account_identifier: { address: SENDER }, signature_type: 'ecdsa_recovery' });

    const unsignedParse = await on('/construction/parse', {
      network_identifier: NETWORK,
      signed: false,
      transaction: payloads.body.unsigned_transaction,
    });
    expect(unsignedParse.body.account_identifier_signers).toEqual([]);

    const combine = await on('/construction/combine', {
      network_identifier: NETWORK,
      unsigned_transaction: payloads.body.unsigned_transaction,
      signatures: [
        {
          signing_payload: payload,
          public_key: publicKey(),
          signature_type: 'ecdsa_recovery',
          hex_bytes: rsvSignature(payload.hex_bytes),
        },
      ],
    });
    expect(combine.status).toBe(200);
    const signed: string = combine.body.signed_transaction;

    const parse = await on('/construction/parse', { network_identifier: NETWORK, signed: true, transaction: signed });
    expect(parse.body.account_identifier_signers).toEqual([{ address: SENDER }]);
    const transfers = parse.body.operations.filter((o: { type: string }) => o.type === 'token_transfer');
    expect(
      transfers.map((o: { account: { address: string }; amount: { value: string } }) => [o.account.address, o.amount.value]),
    ).toEqual([
      [SENDER, '-12345'],
      [RECIPIENT, '12345'],
    ]);

    const hash = await on('/construction/hash', { network_identifier: NETWORK, signed_transaction: signed });
    const submit = await on('/construction/submit', { network_identifier: NETWORK, signed_transaction: signed });
    expect(submit.status).toBe(200);

    // The node got exactly the bytes combine returned; the project's decoder reads the intended transfer from them.
    expect(node.submitted).toHaveLength(1);
    expect(`0x${node.submitted[0]!.toString('hex')}`).toBe(signed.startsWith('0x') ? signed : `0x${signed}`);
    const decoded = decodeTransaction(`0x${node.submitted[0]!.toString('hex')}`);
    expect(decoded.senderAddress).toBe(SENDER);
    expect(decoded.payload).toMatchObject({ typeId: 'token_transfer', recipient: RECIPIENT, amount: 12345n });
    expect(decoded.nonce).toBe(7n);
    expect(decoded.feeRate).toBe(360n);
    expect(hash.body.transaction_identifier.hash).toBe(decoded.txId);
    expect(submit.body.transaction_identifier.hash).toBe(decoded.txId);
  });

  it('refuses a signature over another payload, a wrong-length signature and an uncompressed key, with catalogued errors', async () => {
    const payloads = await on('/construction/payloads', {
      network_identifier: NETWORK,
      operations: intent('5'),
      metadata: { nonce: '1', fee: '200' },
      public_keys: [publicKey()],
    });
    const payload = payloads.body.payloads[0];
    const combine = (hex_bytes: string, key = publicKey()) =>
      on('/construction/combine', {
        network_identifier: NETWORK,
        unsigned_transaction: payloads.body.unsigned_transaction,
        signatures: [{ signing_payload: payload, public_key: key, signature_type: 'ecdsa_recovery', hex_bytes }],
      });
    const otherHash = createHash('sha256').update('another payload').digest('hex');
    const wrongPayload = await combine(rsvSignature(otherHash));
    expect(wrongPayload.status).toBe(500);
    expect(wrongPayload.body).toMatchObject({ code: 726, message: 'Signature does not match', retriable: false });

    const short = await combine(rsvSignature(payload.hex_bytes).slice(0, 128));
    expect(short.body).toMatchObject({ code: 725, message: 'Invalid signature' });

    const uncompressed = uncompressPublicKey(PUBLIC_KEY);
    expect(uncompressed).toHaveLength(130);
    const derive = await on('/construction/derive', { network_identifier: NETWORK, public_key: publicKey(uncompressed) });
    expect(derive.status).toBe(500);
    expect(derive.body).toMatchObject({ code: 718, message: 'Invalid public key' });
    const combineUncompressed = await combine(rsvSignature(payload.hex_bytes), publicKey(uncompressed));
    expect(combineUncompressed.body).toMatchObject({ code: 718, message: 'Invalid public key' });

    const notOnCurve = await on('/construction/derive', {
      network_identifier: NETWORK,
      public_key: publicKey(`02${'00'.repeat(32)}`),
    });
    expect(notOnCurve.body).toMatchObject({ code: 718 });
    const wrongCurve = await on('/construction/derive', {
      network_identifier: NETWORK,
      public_key: { hex_bytes: PUBLIC_KEY, curve_type: 'edwards25519' },
    });
    expect(wrongCurve.body).toMatchObject({ code: 717, message: 'Unsupported curve type' });
  });

  it('answers a node that refuses the transaction and a node that is down with their own errors', async () => {
    const refusing = await startStubNode({ nonce: 0, feeRate: 1, reject: true });
    const api = await startRosettaApi(testInfra().databaseUrl, {
      offline: false,
      network: 'testnet',
      nodeRpcUrls: [refusing.url],
      nodeTimeoutMs: 2_000,
    });
    const down = await startRosettaApi(testInfra().databaseUrl, {
      offline: false,
      network: 'testnet',
      nodeRpcUrls: ['http://127.0.0.1:9'],
      nodeTimeoutMs: 2_000,
    });
    try {
      const payloads = await on('/construction/payloads', {
        network_identifier: NETWORK,
        operations: intent('5'),
        metadata: { nonce: '0', fee: '180' },
        public_keys: [publicKey()],
      });
      const payload = payloads.body.payloads[0];
      const combine = await on('/construction/combine', {
        network_identifier: NETWORK,
        unsigned_transaction: payloads.body.unsigned_transaction,
        signatures: [
          {
            signing_payload: payload,
            public_key: publicKey(),
            signature_type: 'ecdsa_recovery',
            hex_bytes: rsvSignature(payload.hex_bytes),
          },
        ],
      });
      const rejected = await rosettaPost(api.baseUrl, '/construction/submit', {
        network_identifier: NETWORK,
        signed_transaction: combine.body.signed_transaction,
      });
      expect(rejected.body).toMatchObject({ code: 729, message: 'Transaction rejected by the node', retriable: false });
      expect(rejected.body.details.reason).toMatchObject({ reason: 'BadNonce' });
      const unavailable = await rosettaPost(down.baseUrl, '/construction/submit', {
        network_identifier: NETWORK,
        signed_transaction: combine.body.signed_transaction,
      });
      expect(unavailable.body).toMatchObject({ code: 728, message: 'Stacks node unavailable', retriable: true });
      const noMeta = await rosettaPost(down.baseUrl, '/construction/metadata', {
        network_identifier: NETWORK,
        options: { sender_address: SENDER, recipient_address: RECIPIENT, amount: '5' },
      });
      expect(noMeta.body).toMatchObject({ code: 728 });
    } finally {
      await api.close();
      await down.close();
      await refusing.close();
    }
  });

  it('serves derive, preprocess, payloads, combine, parse and hash offline, and refuses the rest', async () => {
    const derive = await off('/construction/derive', { network_identifier: NETWORK, public_key: publicKey() });
    expect(derive.body).toEqual({ account_identifier: { address: SENDER } });
    const pre = await off('/construction/preprocess', { network_identifier: NETWORK, operations: intent('77') });
    expect(pre.status).toBe(200);
    const payloads = await off('/construction/payloads', {
      network_identifier: NETWORK,
      operations: intent('77'),
      metadata: { nonce: '3', fee: '180' },
      public_keys: [publicKey()],
    });
    const payload = payloads.body.payloads[0];
    const combine = await off('/construction/combine', {
      network_identifier: NETWORK,
      unsigned_transaction: payloads.body.unsigned_transaction,
      signatures: [
        {
          signing_payload: payload,
          public_key: publicKey(),
          signature_type: 'ecdsa_recovery',
          hex_bytes: rsvSignature(payload.hex_bytes),
        },
      ],
    });
    const parse = await off('/construction/parse', {
      network_identifier: NETWORK,
      signed: true,
      transaction: combine.body.signed_transaction,
    });
    expect(parse.body.account_identifier_signers).toEqual([{ address: SENDER }]);
    const hash = await off('/construction/hash', {
      network_identifier: NETWORK,
      signed_transaction: combine.body.signed_transaction,
    });
    expect(hash.body.transaction_identifier.hash).toBe(decodeTransaction(combine.body.signed_transaction).txId);
    const list = await off('/network/list', {});
    expect(list.body).toEqual({ network_identifiers: [NETWORK] });
    const options = await off('/network/options', { network_identifier: NETWORK });
    expect(options.status).toBe(200);
    for (const path of [
      '/construction/metadata',
      '/construction/submit',
      '/network/status',
      '/block',
      '/account/balance',
      '/mempool',
    ]) {
      const res = await off(path, { network_identifier: NETWORK });
      expectMessage(path, () => expect(res.status).toBe(500));
      expectMessage(path, () =>
        expect(res.body).toMatchObject({ code: 716, message: 'Endpoint not available offline', retriable: false }),
      );
    }
  });
});
