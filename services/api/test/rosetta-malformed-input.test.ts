import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { privateKeyToPublic } from '@stacks/transactions';
import { ROSETTA_ERRORS } from '../src/rosetta';
import { startRosettaApi, type RosettaApi } from './support/rosetta-api';
import { validateRosettaResponse } from './support/rosetta-schemas';
import { startStubNode, type StubNode } from './support/rosetta-stub-node';

const NETWORK = { blockchain: 'stacks', network: 'testnet' };
const STX = { symbol: 'STX', decimals: 6 };
const PUBLIC_KEY = privateKeyToPublic('edf9aee84d9b7abc145504dde6726c64f369d37ee34ded868fabd876c26570bc01') as string;
const SENDER = 'ST3J2GVMMM2R07ZFBJDWTYEYAR8FZH5WKDTFJ9AHA';
const RECIPIENT = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
const HASH = `0x${'ab'.repeat(32)}`;
const OPS = [
  {
    operation_identifier: { index: 0 },
    type: 'token_transfer',
    account: { address: SENDER },
    amount: { value: '-5', currency: STX },
  },
  {
    operation_identifier: { index: 1 },
    type: 'token_transfer',
    account: { address: RECIPIENT },
    amount: { value: '5', currency: STX },
  },
];

/** A well-formed body of each of the 16 endpoints; the sweep breaks each of their fields in turn. */
const VALID: Record<string, Record<string, unknown>> = {
  '/network/list': { metadata: {} },
  '/network/status': { network_identifier: NETWORK },
  '/network/options': { network_identifier: NETWORK },
  '/block': { network_identifier: NETWORK, block_identifier: { index: 1, hash: HASH } },
  '/block/transaction': {
    network_identifier: NETWORK,
    block_identifier: { index: 1, hash: HASH },
    transaction_identifier: { hash: HASH },
  },
  '/mempool': { network_identifier: NETWORK },
  '/mempool/transaction': { network_identifier: NETWORK, transaction_identifier: { hash: HASH } },
  '/account/balance': {
    network_identifier: NETWORK,
    account_identifier: { address: SENDER, sub_account: { address: 'stacked' } },
    block_identifier: { index: 1 },
    currencies: [STX],
  },
  '/construction/derive': { network_identifier: NETWORK, public_key: { hex_bytes: PUBLIC_KEY, curve_type: 'secp256k1' } },
  '/construction/preprocess': { network_identifier: NETWORK, operations: OPS },
  '/construction/metadata': {
    network_identifier: NETWORK,
    options: { sender_address: SENDER, recipient_address: RECIPIENT, amount: '5' },
  },
  '/construction/payloads': {
    network_identifier: NETWORK,
    operations: OPS,
    metadata: { nonce: '1', fee: '180' },
    public_keys: [{ hex_bytes: PUBLIC_KEY, curve_type: 'secp256k1' }],
  },
  '/construction/combine': {
    network_identifier: NETWORK,
    unsigned_transaction: '00',
    signatures: [
      {
        signing_payload: { hex_bytes: 'ab', signature_type: 'ecdsa_recovery' },
        public_key: { hex_bytes: PUBLIC_KEY, curve_type: 'secp256k1' },
        signature_type: 'ecdsa_recovery',
        hex_bytes: '00'.repeat(65),
      },
    ],
  },
  '/construction/parse': { network_identifier: NETWORK, signed: false, transaction: '00' },
  '/construction/hash': { network_identifier: NETWORK, signed_transaction: '00' },
  '/construction/submit': { network_identifier: NETWORK, signed_transaction: '00' },
};

/** Values put in place of each field. */
const BAD_VALUES: unknown[] = [null, 0, -1, 1.5, 1e300, '', 'x', '0x', 'Z'.repeat(5000), true, [], [1], {}, { a: { b: [] } }];

/** Every body with one field (at any depth) replaced by each bad value, or removed. */
function mutations(body: unknown, path: string[] = []): Array<{ where: string; body: unknown }> {
  const out: Array<{ where: string; body: unknown }> = [];
  if (typeof body !== 'object' || body === null) return out;
  const entries = Array.isArray(body) ? body.map((v, i) => [String(i), v] as const) : Object.entries(body);
  for (const [key, value] of entries) {
    const replace = (v: unknown) => {
      const copy = (Array.isArray(body) ? [...body] : { ...(body as Record<string, unknown>) }) as Record<string, unknown>;
      if (v === undefined) delete copy[key];
      else copy[key] = v;
      return Array.isArray(body) ? Object.values(copy) : copy;
    };
    for (const v of [undefined, ...BAD_VALUES]) out.push({ where: [...path, key].join('.'), body: replace(v) });
    for (const m of mutations(value, [...path, key])) out.push({ where: m.where, body: replace(m.body) });
  }
  return out;
}

const RAW_BODIES = [
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '42',
  '{"network_identifier":',
  '\u0000',
  '{"a":1}'.repeat(3),
  `{"x":"${'y'.repeat(600_000)}"}`,
];

const CATALOGUE = new Map(Object.values(ROSETTA_ERRORS).map((e) => [e.code, e]));

describe('Rosetta malformed-input sweep over the 16 endpoints', () => {
  let online: RosettaApi;
  let offline: RosettaApi;
  let node: StubNode;

  beforeAll(async () => {
    node = await startStubNode({ nonce: 1, feeRate: 1, reject: true });
    online = await startRosettaApi(testInfra().databaseUrl, {
      offline: false,
      network: 'testnet',
      nodeRpcUrls: [node.url],
      nodeTimeoutMs: 2_000,
    });
    offline = await startRosettaApi(null, { offline: true, network: 'testnet', nodeRpcUrls: [], nodeTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await online?.close();
    await offline?.close();
    await node?.close();
  });

  it('answers only 200 or 500 with a catalogued Error, never an internal error, for every broken body', async () => {
    const tally = { requests: 0, ok: 0, errors: 0, other: [] as string[] };
    for (const api of [online, offline]) {
      for (const [path, valid] of Object.entries(VALID)) {
        const cases: Array<{ where: string; text: string; init?: RequestInit }> = [
          { where: 'valid', text: JSON.stringify(valid) },
          ...mutations(valid).map((m) => ({ where: m.where, text: JSON.stringify(m.body) })),
          ...RAW_BODIES.map((text, i) => ({ where: `raw#${i}`, text })),
          { where: 'text/plain', text: JSON.stringify(valid), init: { headers: { 'content-type': 'text/plain' } } },
          { where: 'GET', text: '', init: { method: 'GET' } },
          { where: 'PUT', text: JSON.stringify(valid), init: { method: 'PUT' } },
        ];
        for (const c of cases) {
          const method = c.init?.method ?? 'POST';
          const res = await fetch(`${api.baseUrl}/rosetta/v1${path}`, {
            method,
            headers: { 'content-type': 'application/json' },
            ...(method === 'GET' ? {} : { body: c.text }),
            ...c.init,
          });
          tally.requests++;
          const text = await res.text();
          const label = `${api === online ? 'online' : 'offline'} ${method} ${path} ${c.where} → ${res.status} ${text.slice(0, 200)}`;
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            tally.other.push(label);
            continue;
          }
          if (res.status === 200) {
            validateRosettaResponse(path, 200, body);
            tally.ok++;
          } else if (res.status === 500) {
            validateRosettaResponse(path, 500, body);
            const e = body as { code: number; message: string; retriable: boolean };
            const entry = CATALOGUE.get(e.code);
            if (
              !entry ||
              entry.message !== e.message ||
              entry.retriable !== e.retriable ||
              e.code === ROSETTA_ERRORS.internal.code
            ) {
              tally.other.push(label);
            }
            tally.errors++;
          } else {
            tally.other.push(label);
          }
        }
      }
    }
    expect(tally.other).toEqual([]);
    expect(tally.requests).toBeGreaterThan(2000);
    expect(tally.ok + tally.errors).toBe(tally.requests);
    // The api is still answering afterwards.
    const after = await fetch(`${online.baseUrl}/rosetta/v1/network/list`, { method: 'POST', body: '{}' });
    expect(after.status).toBe(200);
  });

  it('lists the whole catalogue in /network/options, codes and messages unique, without details', async () => {
    const res = await fetch(`${offline.baseUrl}/rosetta/v1/network/options`, {
      method: 'POST',
      body: JSON.stringify({ network_identifier: NETWORK }),
    });
    const body = (await res.json()) as {
      allow: { errors: Array<{ code: number; message: string; retriable: boolean; details?: unknown }> };
    };
    validateRosettaResponse('/network/options', res.status, body);
    const errors = body.allow.errors;
    expect(errors.map((e) => e.code)).toEqual([...CATALOGUE.keys()]);
    expect(new Set(errors.map((e) => e.code)).size).toBe(errors.length);
    expect(new Set(errors.map((e) => e.message)).size).toBe(errors.length);
    expect(errors.every((e) => e.details === undefined)).toBe(true);
    for (const e of errors)
      expect({ message: e.message, retriable: e.retriable }).toEqual({
        message: CATALOGUE.get(e.code)!.message,
        retriable: CATALOGUE.get(e.code)!.retriable,
      });
  });

  it('names each failure of the issue with its own error', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${online.baseUrl}/rosetta/v1${path}`, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { code: number } };
    };
    const codes = {
      malformedJson: (await post('/block', '{"network_identifier":')).body.code,
      wrongNetwork: (await post('/block', { network_identifier: { blockchain: 'stacks', network: 'mainnet' } })).body.code,
      unknownBlock: (await post('/block', { network_identifier: NETWORK, block_identifier: { index: 999 } })).body.code,
      badPublicKey: (
        await post('/construction/derive', {
          network_identifier: NETWORK,
          public_key: { hex_bytes: '04ab', curve_type: 'secp256k1' },
        })
      ).body.code,
      unsupportedOperation: (
        await post('/construction/preprocess', {
          network_identifier: NETWORK,
          operations: [{ ...OPS[0], type: 'stx_lock' }, OPS[1]],
        })
      ).body.code,
      badTransaction: (await post('/construction/submit', { network_identifier: NETWORK, signed_transaction: '00' })).body.code,
    };
    expect(codes).toEqual({
      malformedJson: ROSETTA_ERRORS.malformedRequest.code,
      wrongNetwork: ROSETTA_ERRORS.networkMismatch.code,
      unknownBlock: ROSETTA_ERRORS.blockNotFound.code,
      badPublicKey: ROSETTA_ERRORS.invalidPublicKey.code,
      unsupportedOperation: ROSETTA_ERRORS.invalidOperations.code,
      badTransaction: ROSETTA_ERRORS.invalidTransaction.code,
    });
    expect(new Set(Object.values(codes)).size).toBe(Object.keys(codes).length);
  });
});
