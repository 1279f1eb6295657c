import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { loadSchemaSources, SchemaValidator } from '@bda/api';
import { decodeStacksAddress, encodeStacksAddress } from '@bda/stacks-codec';
import { loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';
import {
  deadLetterMark,
  expectNoDeadLetterSince,
  hashOf,
  postNodeEvents,
  rawTxOf,
  RECIPIENT,
  SENDER,
  transferWithNonce,
  type RawTx,
  BlockRef,
  MAX_U128,
  newBlockBody as makeBlock,
  type MinerReward,
  NodeEventBody,
  transferEvent,
  ZERO_HASH,
  minedTx,
  type NodeTxBody,
} from '../support/node-event-sender';

/**
 * Single node events that are schema-valid but whose CONTENTS are unusual (the sequences are the subject of
 * unusual-payloads.test.ts): amounts at the u128 limit, as strings and as bare JSON numbers; NUL characters, lone
 * surrogates and invalid UTF-8; Clarity values nested to and past the limit; every event type; failed transactions;
 * burnchain operations; Nakamoto blocks; sponsored transactions; huge ABIs; unknown fields; undecodable mempool
 * entries. Each is posted through the observer; whatever it answered 200 for must be applied (nothing in
 * `dead_letters`), and the stored rows and the api's answers must be exact. Every api answer is also checked against
 * the OpenAPI document's schema.
 * Transactions are the recorded token transfer (node-event-sender.ts) with another nonce, or built here byte by
 * byte (the indexer decodes, it does not check signatures).
 */

// ---------------------------------------------------------------------------------------------------------------
// Payload makers (the shared ones are in test/support/node-event-sender.ts), transaction and Clarity value builders

const MAX_U64 = 18446744073709551615n;

let nextNonce = 2_000_000n;

/** A new token transfer (SENDER → RECIPIENT, 1000 µSTX): the recorded one with the next nonce. */
const transfer = (): RawTx => transferWithNonce(nextNonce++);

const u8 = (n: number) => n.toString(16).padStart(2, '0');
const u32 = (n: number) => n.toString(16).padStart(8, '0');
const u64 = (n: bigint) => n.toString(16).padStart(16, '0');
const bytesHex = (s: string, encoding: BufferEncoding = 'utf8') => Buffer.from(s, encoding).toString('hex');

/** `version (1) + hash160 (20)` of a standard address. */
function addressBytes(address: string): string {
  const { version, hash160 } = decodeStacksAddress(address);
  return u8(version) + hash160;
}

/** A key holder: its hash160 and the testnet single-sig address of it. */
interface Signer {
  hash160: string;
  address: string;
}

function signer(label: string): Signer {
  const hash160 = hashOf(`signer ${label}`, 20).slice(2);
  return { hash160, address: encodeStacksAddress(26, hash160) };
}

/** A principal nobody else uses: its history must hold exactly what a case gives it. */
const freshAddress = (label: string) => signer(`fresh ${label}`).address;

/** Clarity values in their consensus serialization (hex, no `0x`). */
const cv = {
  uint: (n: bigint | string) => '01' + BigInt(n).toString(16).padStart(32, '0'),
  buff: (hex: string) => '02' + u32(hex.length / 2) + hex,
  principal: (p: string) => {
    const [address, name] = p.split('.');
    return name === undefined ? '05' + addressBytes(address!) : '06' + addressBytes(address!) + u8(name.length) + bytesHex(name);
  },
  ok: (v: string) => '07' + v,
  err: (v: string) => '08' + v,
  none: '09',
  some: (v: string) => '0a' + v,
  list: (items: string[]) => '0b' + u32(items.length) + items.join(''),
  tuple: (entries: Array<[string, string]>) =>
    '0c' + u32(entries.length) + entries.map(([k, v]) => u8(k.length) + bytesHex(k) + v).join(''),
  ascii: (bytes: Buffer) => '0d' + u32(bytes.length) + bytes.toString('hex'),
  utf8: (bytes: Buffer) => '0e' + u32(bytes.length) + bytes.toString('hex'),
};

/** Single-sig P2PKH spending condition with an all-zero signature. */
function spending(s: Signer, nonce: bigint, fee: bigint): string {
  return '00' + s.hash160 + u64(nonce) + u64(fee) + '00' + '00'.repeat(65);
}

const payloads = {
  tokenTransfer: (recipient: string, amount: bigint, memo = '') =>
    '00' + cv.principal(recipient) + u64(amount) + memo.padEnd(68, '0'),
  contractCall: (contractId: string, fn: string, args: string[]) => {
    const [address, name] = contractId.split('.') as [string, string];
    return (
      '02' +
      addressBytes(address) +
      u8(name.length) +
      bytesHex(name) +
      u8(fn.length) +
      bytesHex(fn) +
      u32(args.length) +
      args.join('')
    );
  },
  /** A versioned smart contract (payload 0x06). */
  smartContract: (name: string, source: string, clarityVersion: number) =>
    '06' + u8(clarityVersion) + u8(name.length) + bytesHex(name) + u32(Buffer.byteLength(source)) + bytesHex(source),
};

/** An STX post-condition on a standard principal: sent ≥ amount. */
function stxPostCondition(address: string, amount: bigint): string {
  return '00' + '02' + addressBytes(address) + '03' + u64(amount);
}

interface TxSpec {
  origin: Signer;
  nonce?: bigint;
  fee?: bigint;
  sponsor?: { signer: Signer; fee: bigint; nonce?: bigint };
  postConditions?: string[];
  payload: string;
}

/** A testnet transaction, serialized byte by byte (anchor mode any, post-condition mode deny when it has some). */
function buildTx(spec: TxSpec): RawTx {
  const pcs = spec.postConditions ?? [];
  const hex =
    '80' +
    '80000000' +
    (spec.sponsor ? '05' : '04') +
    spending(spec.origin, spec.nonce ?? nextNonce++, spec.fee ?? 0n) +
    (spec.sponsor ? spending(spec.sponsor.signer, spec.sponsor.nonce ?? 0n, spec.sponsor.fee) : '') +
    '03' +
    (pcs.length > 0 ? '02' : '01') +
    u32(pcs.length) +
    pcs.join('') +
    spec.payload;
  return rawTxOf(hex);
}

interface ExecutionCost {
  read_count: number;
  read_length: number;
  runtime: number;
  write_count: number;
  write_length: number;
}

const NO_COST: ExecutionCost = { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 };

/** An event of `type` with its body, committed unless said otherwise. */
function nodeEvent(
  txid: string,
  eventIndex: number,
  type: string,
  body: Record<string, unknown>,
  committed = true,
): NodeEventBody {
  return { txid, event_index: eventIndex, committed, type, [type]: body };
}

/**
 * A JSON number too large for a JS number, as a placeholder string: `toJsonText` writes it as a bare JSON number,
 * the way a node serializes u64/u128 fields of some payloads.
 */
const bare = (digits: string) => `@@bare:${digits}@@`;

function toJsonText(body: unknown): string {
  return JSON.stringify(body).replace(/"@@bare:(\d+)@@"/g, '$1');
}

// ---------------------------------------------------------------------------------------------------------------
// System helpers

/** Posts the events in order through the observer (as a node does): each one answered 200. */
const post = (sys: TestSystem, ...events: Array<[path: string, body: unknown]>) => postNodeEvents(sys, events, toJsonText);

/** `post`, then waits until the indexer applied them all. */
async function send(sys: TestSystem, ...events: Array<[path: string, body: unknown]>): Promise<void> {
  await post(sys, ...events);
  await sys.waitForCaughtUp();
}

async function chainTip(sys: TestSystem): Promise<BlockRef> {
  return (await sys.db('chain_tip').first('index_block_hash', 'block_hash', 'block_height')) as BlockRef;
}

const validator = new SchemaValidator(loadSchemaSources());

/**
 * GET `path` from the api; a 200 answer must match the schema the OpenAPI document gives `template`. `path` is
 * `template` with its parameters filled in (and a query string, if any).
 */
async function apiGet<T>(sys: TestSystem, template: string, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sys.apiUrl}${path}`);
  const body = (await res.json()) as T;
  if (res.status === 200) validator.validateResponse(template, 'get', 200, body);
  return { status: res.status, body };
}

interface EventAnswer {
  event_index: number;
  event_type: string;
  asset?: Record<string, unknown>;
  stx_lock_event?: Record<string, unknown>;
  contract_log?: { contract_id: string; topic: string; value: { hex: string; repr: string } };
}

interface TxAnswer {
  tx_id: string;
  tx_status: string;
  tx_type: string;
  nonce: number;
  fee_rate: string;
  sender_address: string;
  sponsored: boolean;
  sponsor_address?: string;
  sponsor_nonce?: number;
  post_conditions: unknown[];
  block_height?: number;
  block_time?: number;
  vm_error?: string | null;
  event_count?: number;
  events?: EventAnswer[];
  tx_result?: { hex: string; repr: string };
  token_transfer?: { recipient_address: string; amount: string; memo: string };
  smart_contract?: { clarity_version: number | null; contract_id: string; source_code: string };
  contract_call?: {
    contract_id: string;
    function_name: string;
    function_signature: string;
    function_args?: Array<{ hex: string; repr: string; name: string; type: string }>;
  };
  coinbase_payload?: { data: string; alt_recipient: string | null; vrf_proof: string | null };
  tenure_change_payload?: Record<string, unknown>;
}

const getTx = (sys: TestSystem, txid: string) =>
  apiGet<TxAnswer>(sys, '/extended/v1/tx/{tx_id}', `/extended/v1/tx/${txid}?event_limit=100`);

const history = async (sys: TestSystem, principal: string) =>
  (
    await apiGet<{ total: number; results: Array<{ tx_id: string }> }>(
      sys,
      '/extended/v1/address/{principal}/transactions',
      `/extended/v1/address/${principal}/transactions?limit=50`,
    )
  ).body;

// ---------------------------------------------------------------------------------------------------------------

describe('node events with unusual contents', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer', 'api']);
    // The chain starts at a block whose parent is unknown (the indexer's first block).
    const root = makeBlock('contents root', {
      index_block_hash: hashOf('before contents root'),
      block_hash: hashOf('before contents root block'),
      block_height: 0,
    });
    await send(sys, ['/new_block', root.body]);
  });
  afterAll(() => sys?.stop());

  const eventRows = (hash: string) =>
    sys
      .db('events')
      .where({ index_block_hash: hash })
      .orderBy('event_index')
      .select('event_index', 'type', 'committed', 'sender', 'recipient', 'amount', 'locked_amount', 'unlock_height', 'memo');

  describe('amounts', () => {
    it('serves u128 amounts of stx, ft and lock events and miner rewards exactly, as strings and as bare JSON numbers', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const token = `${SENDER}.u128-token::u128`;
      const holder = freshAddress('u128 holder');
      const events: NodeEventBody[] = [
        nodeEvent(t.txid, 0, 'stx_transfer_event', { sender: SENDER, recipient: holder, amount: MAX_U128, memo: '00ff00' }),
        nodeEvent(t.txid, 1, 'stx_mint_event', { recipient: holder, amount: MAX_U128 }),
        nodeEvent(t.txid, 2, 'stx_burn_event', { sender: holder, amount: MAX_U128 }),
        nodeEvent(t.txid, 3, 'stx_lock_event', {
          locked_amount: MAX_U128,
          unlock_height: 4_294_967_295,
          locked_address: holder,
          contract_identifier: 'ST000000000000000000002AMW42H.pox-4',
        }),
        // A bare JSON number beyond 2^53: the bus must not round it.
        nodeEvent(t.txid, 4, 'ft_mint_event', { asset_identifier: token, recipient: holder, amount: bare(MAX_U128) }),
        nodeEvent(t.txid, 5, 'ft_transfer_event', {
          asset_identifier: token,
          sender: holder,
          recipient: SENDER,
          amount: MAX_U128,
        }),
        // A bare JSON number a JS number holds exactly.
        nodeEvent(t.txid, 6, 'ft_burn_event', { asset_identifier: token, sender: SENDER, amount: 1000 }),
        // No memo at all.
        nodeEvent(t.txid, 7, 'stx_transfer_event', { sender: SENDER, recipient: holder, amount: '0' }),
      ];
      const rewards = [
        {
          from_index_consensus_hash: hashOf('u128 reward consensus', 20),
          from_stacks_block_hash: hashOf('u128 reward block'),
          recipient: holder,
          miner_address: holder,
          // The observer's schema allows amounts as numbers here.
          coinbase_amount: bare(MAX_U128),
          tx_fees_anchored: bare('18446744073709551616'),
          tx_fees_streamed_confirmed: 9_007_199_254_740_991,
          tx_fees_streamed_produced: MAX_U128,
        },
      ] as unknown as MinerReward[];
      const block = makeBlock('u128 amounts', await chainTip(sys), { txs: [minedTx(t, 0)], events, rewards });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const hash = block.ref.index_block_hash;

      expect(await eventRows(hash)).toEqual([
        {
          event_index: 0,
          type: 'stx_transfer_event',
          committed: true,
          sender: SENDER,
          recipient: holder,
          amount: MAX_U128,
          locked_amount: null,
          unlock_height: null,
          memo: '0x00ff00',
        },
        {
          event_index: 1,
          type: 'stx_mint_event',
          committed: true,
          sender: null,
          recipient: holder,
          amount: MAX_U128,
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
        {
          event_index: 2,
          type: 'stx_burn_event',
          committed: true,
          sender: holder,
          recipient: null,
          amount: MAX_U128,
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
        {
          event_index: 3,
          type: 'stx_lock_event',
          committed: true,
          sender: null,
          recipient: null,
          amount: null,
          locked_amount: MAX_U128,
          unlock_height: '4294967295',
          memo: null,
        },
        {
          event_index: 4,
          type: 'ft_mint_event',
          committed: true,
          sender: null,
          recipient: holder,
          amount: MAX_U128,
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
        {
          event_index: 5,
          type: 'ft_transfer_event',
          committed: true,
          sender: holder,
          recipient: SENDER,
          amount: MAX_U128,
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
        {
          event_index: 6,
          type: 'ft_burn_event',
          committed: true,
          sender: SENDER,
          recipient: null,
          amount: '1000',
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
        {
          event_index: 7,
          type: 'stx_transfer_event',
          committed: true,
          sender: SENDER,
          recipient: holder,
          amount: '0',
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
      ]);
      expect(
        await sys
          .db('miner_rewards')
          .where({ index_block_hash: hash })
          .select('recipient', 'coinbase_amount', 'tx_fees_anchored', 'tx_fees_streamed_confirmed', 'tx_fees_streamed_produced'),
      ).toEqual([
        {
          recipient: holder,
          coinbase_amount: MAX_U128,
          tx_fees_anchored: '18446744073709551616',
          tx_fees_streamed_confirmed: '9007199254740991',
          tx_fees_streamed_produced: MAX_U128,
        },
      ]);

      const answer = await getTx(sys, t.txid);
      expect(answer.status).toBe(200);
      expect(answer.body.event_count).toBe(8);
      expect(answer.body.events).toEqual([
        {
          event_index: 0,
          tx_id: t.txid,
          event_type: 'stx_asset',
          asset: { asset_event_type: 'transfer', sender: SENDER, recipient: holder, amount: MAX_U128, memo: '0x00ff00' },
        },
        {
          event_index: 1,
          tx_id: t.txid,
          event_type: 'stx_asset',
          asset: { asset_event_type: 'mint', sender: '', recipient: holder, amount: MAX_U128 },
        },
        {
          event_index: 2,
          tx_id: t.txid,
          event_type: 'stx_asset',
          asset: { asset_event_type: 'burn', sender: holder, recipient: '', amount: MAX_U128 },
        },
        {
          event_index: 3,
          tx_id: t.txid,
          event_type: 'stx_lock',
          stx_lock_event: { locked_amount: MAX_U128, unlock_height: 4_294_967_295, locked_address: holder },
        },
        {
          event_index: 4,
          tx_id: t.txid,
          event_type: 'fungible_token_asset',
          asset: { asset_event_type: 'mint', asset_id: token, sender: '', recipient: holder, amount: MAX_U128 },
        },
        {
          event_index: 5,
          tx_id: t.txid,
          event_type: 'fungible_token_asset',
          asset: { asset_event_type: 'transfer', asset_id: token, sender: holder, recipient: SENDER, amount: MAX_U128 },
        },
        {
          event_index: 6,
          tx_id: t.txid,
          event_type: 'fungible_token_asset',
          asset: { asset_event_type: 'burn', asset_id: token, sender: SENDER, recipient: '', amount: '1000' },
        },
        {
          event_index: 7,
          tx_id: t.txid,
          event_type: 'stx_asset',
          asset: { asset_event_type: 'transfer', sender: SENDER, recipient: holder, amount: '0' },
        },
      ]);
      expect(await history(sys, holder)).toMatchObject({ total: 1, results: [{ tx_id: t.txid }] });
    });

    it('serves a token transfer whose fee, amount and post-condition are u64::MAX exactly, from the mempool and mined', async () => {
      const mark = await deadLetterMark(sys);
      const payer = signer('u64 payer');
      const t = buildTx({
        origin: payer,
        nonce: 7n,
        fee: MAX_U64,
        postConditions: [stxPostCondition(payer.address, MAX_U64)],
        payload: payloads.tokenTransfer(RECIPIENT, MAX_U64, bytesHex('max')),
      });
      const expected = {
        tx_id: t.txid,
        nonce: 7,
        fee_rate: MAX_U64.toString(),
        sender_address: payer.address,
        sponsored: false,
        post_condition_mode: 'deny',
        post_conditions: [
          {
            type: 'stx',
            principal: { type_id: 'principal_standard', address: payer.address },
            condition_code: 'sent_greater_than_or_equal_to',
            amount: MAX_U64.toString(),
          },
        ],
        tx_type: 'token_transfer',
        token_transfer: {
          recipient_address: RECIPIENT,
          amount: MAX_U64.toString(),
          memo: `0x${bytesHex('max').padEnd(68, '0')}`,
        },
      };
      await send(sys, ['/new_mempool_tx', [t.raw]]);
      await expectNoDeadLetterSince(sys, mark);
      const pending = await getTx(sys, t.txid);
      expect(pending).toMatchObject({ status: 200, body: { ...expected, tx_status: 'pending' } });
      const list = await apiGet<{ total: number; results: TxAnswer[] }>(
        sys,
        '/extended/v1/tx/mempool',
        `/extended/v1/tx/mempool?sender_address=${payer.address}&order_by=fee`,
      );
      expect(list.body).toMatchObject({ total: 1, results: [{ tx_id: t.txid, fee_rate: MAX_U64.toString() }] });

      const block = makeBlock('u64 fee', await chainTip(sys), {
        txs: [minedTx(t, 0)],
        events: [
          nodeEvent(t.txid, 0, 'stx_transfer_event', {
            sender: payer.address,
            recipient: RECIPIENT,
            amount: MAX_U64.toString(),
            memo: bytesHex('max').padEnd(68, '0'),
          }),
        ],
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      expect(await sys.db('txs').where({ tx_id: t.txid }).first('fee_rate', 'nonce', 'sponsored')).toEqual({
        fee_rate: MAX_U64.toString(),
        nonce: '7',
        sponsored: false,
      });
      const mined = await getTx(sys, t.txid);
      expect(mined).toMatchObject({
        status: 200,
        body: { ...expected, tx_status: 'success', block_height: block.ref.block_height },
      });
      expect(mined.body.events?.[0]?.asset).toMatchObject({ amount: MAX_U64.toString() });
    });
    it('stores a burn block whose burn amount and reward amounts are bare u64 and u128 JSON numbers exactly', async () => {
      const mark = await deadLetterMark(sys);
      const hash = hashOf('bare amounts burn block');
      await send(sys, [
        '/new_burn_block',
        {
          burn_block_hash: hash,
          burn_block_height: 800_000,
          burn_amount: bare(MAX_U128),
          consensus_hash: hashOf('bare amounts consensus', 20),
          parent_burn_block_hash: hashOf('bare amounts parent'),
          reward_recipients: [
            { recipient: 'bc1qmax', amt: bare(MAX_U128) },
            { recipient: 'bc1qu64', amt: bare(MAX_U64.toString()) },
            { recipient: 'bc1qsafe', amt: 9_007_199_254_740_991 },
            { recipient: 'bc1qstring', amt: '0' },
          ],
          reward_slot_holders: ['bc1qmax', 'bc1qu64'],
          pox_transactions: [{ future: bare(MAX_U128) }],
        },
      ]);
      await expectNoDeadLetterSince(sys, mark);
      expect(await sys.db('burn_blocks').where({ burn_block_hash: hash }).first('burn_amount', 'canonical')).toEqual({
        burn_amount: MAX_U128,
        canonical: true,
      });
      expect(
        await sys.db('burn_block_rewards').where({ burn_block_hash: hash }).orderBy('reward_index').select('recipient', 'amount'),
      ).toEqual([
        { recipient: 'bc1qmax', amount: MAX_U128 },
        { recipient: 'bc1qu64', amount: MAX_U64.toString() },
        { recipient: 'bc1qsafe', amount: '9007199254740991' },
        { recipient: 'bc1qstring', amount: '0' },
      ]);
    });
  });

  describe('text', () => {
    it('keeps NUL characters and invalid UTF-8 in a vm_error, a contract ABI, a memo and Clarity strings', async () => {
      const mark = await deadLetterMark(sys);
      const deployer = signer('nul deployer');
      const deploy = buildTx({
        origin: deployer,
        payload: payloads.smartContract('nul-log', '(print "a")', 2),
      });
      const failed = transfer();
      const ascii = Buffer.from([0x61, 0x00, 0x62, 0xff, 0x0a]);
      // é, NUL, a byte that is not UTF-8, 😀
      const utf8 = Buffer.concat([Buffer.from('é'), Buffer.from([0x00, 0xff]), Buffer.from('😀')]);
      const contractId = `${deployer.address}.nul-log`;
      const abi = {
        functions: [],
        variables: [],
        maps: [],
        'k\u0000ey': 'v\u0000alue',
        epoch: 'Epoch25',
        clarity_version: 'Clarity2',
      };
      const block = makeBlock('nul text', await chainTip(sys), {
        txs: [
          minedTx(deploy, 0, undefined, { contract_abi: abi }),
          minedTx(failed, 1, undefined, {
            status: 'abort_by_response',
            raw_result: `0x${cv.err(cv.uint(1n))}`,
            vm_error: 'illegal ascii string "a\u0000b"\n\u0000',
          }),
        ],
        events: [
          nodeEvent(deploy.txid, 0, 'contract_event', {
            contract_identifier: contractId,
            topic: 'print',
            raw_value: `0x${cv.ascii(ascii)}`,
          }),
          nodeEvent(deploy.txid, 1, 'contract_event', {
            contract_identifier: contractId,
            topic: 'print',
            raw_value: `0x${cv.utf8(utf8)}`,
          }),
          nodeEvent(deploy.txid, 2, 'stx_transfer_event', {
            sender: deployer.address,
            recipient: RECIPIENT,
            amount: '1',
            memo: '00'.repeat(34),
          }),
        ],
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const row = (await sys.db('txs').where({ tx_id: deploy.txid }).first('contract_abi')) as { contract_abi: unknown };
      expect(row.contract_abi).toEqual({ ...abi, 'k\u0000ey': undefined, 'k\uFFFDey': 'v\uFFFDalue' });

      const deployed = await getTx(sys, deploy.txid);
      expect(deployed.body).toMatchObject({
        tx_status: 'success',
        tx_type: 'smart_contract',
        smart_contract: { clarity_version: 2, contract_id: contractId, source_code: '(print "a")' },
      });
      expect(deployed.body.events).toEqual([
        {
          event_index: 0,
          tx_id: deploy.txid,
          event_type: 'smart_contract_log',
          contract_log: {
            contract_id: contractId,
            topic: 'print',
            value: { hex: `0x${cv.ascii(ascii)}`, repr: '"a\\x00b\\xff\\n"' },
          },
        },
        {
          event_index: 1,
          tx_id: deploy.txid,
          event_type: 'smart_contract_log',
          contract_log: {
            contract_id: contractId,
            topic: 'print',
            value: { hex: `0x${cv.utf8(utf8)}`, repr: 'u"\\u{c3a9}\\x00\\u{efbfbd}\\u{f09f9880}"' },
          },
        },
        {
          event_index: 2,
          tx_id: deploy.txid,
          event_type: 'stx_asset',
          asset: {
            asset_event_type: 'transfer',
            sender: deployer.address,
            recipient: RECIPIENT,
            amount: '1',
            memo: `0x${'00'.repeat(34)}`,
          },
        },
      ]);
      const aborted = await getTx(sys, failed.txid);
      expect(aborted.body).toMatchObject({
        tx_status: 'abort_by_response',
        vm_error: 'illegal ascii string "a\uFFFDb"\n\uFFFD',
        tx_result: { hex: `0x${cv.err(cv.uint(1n))}`, repr: '(err u1)' },
      });
    });

    it('keeps lone surrogates in a vm_error, a contract ABI, a burnchain op and a microblock event', async () => {
      // Each in an event of its own, so that the dead letters tell which one the indexer cannot store.
      const deadLettersOf = async (what: string, ...events: Array<[path: string, body: unknown]>) => {
        const mark = await deadLetterMark(sys);
        await send(sys, ...events);
        const dead: Array<{ reason: string }> = await sys.db('dead_letters').where('id', '>', mark).select('reason');
        expect(dead.map((d) => `${what}: ${d.reason.slice(0, 300)}`)).toEqual([]);
        return dead.length;
      };

      const failed = transfer();
      const vmBlock = makeBlock('lone surrogate vm_error', await chainTip(sys), {
        txs: [
          minedTx(failed, 0, undefined, {
            status: 'abort_by_response',
            raw_result: `0x${cv.err(cv.none)}`,
            vm_error: 'x\ud800y',
          }),
        ],
        extra: { future_field: 'lone \udbff' },
      });
      if ((await deadLettersOf('vm_error', ['/new_block', vmBlock.body])) === 0) {
        expect((await getTx(sys, failed.txid)).body).toMatchObject({ tx_status: 'abort_by_response', vm_error: 'x\uFFFDy' });
      }

      const deployer = signer('surrogate deployer');
      const deploy = buildTx({ origin: deployer, payload: payloads.smartContract('surrogates', '(print 1)', 2) });
      const abiBlock = makeBlock('lone surrogate abi', await chainTip(sys), {
        txs: [minedTx(deploy, 0, undefined, { contract_abi: { functions: [], note: 'a\udc00b' } })],
      });
      if ((await deadLettersOf('contract_abi', ['/new_block', abiBlock.body])) === 0) {
        const row = (await sys.db('txs').where({ tx_id: deploy.txid }).first('contract_abi')) as { contract_abi: unknown };
        expect(row.contract_abi).toEqual({ functions: [], note: 'a\uFFFDb' });
      }

      const burnTxid = hashOf('surrogate burn op');
      const holder = freshAddress('surrogate recipient');
      const opBlock = makeBlock('lone surrogate burnchain op', await chainTip(sys), {
        txs: [
          minedTx({ txid: burnTxid, raw: '0x00' }, 0, undefined, {
            burnchain_op: {
              transfer_stx: {
                sender: { address: SENDER, address_hash_bytes: `0x${decodeStacksAddress(SENDER).hash160}`, address_version: 26 },
                recipient: {
                  address: holder,
                  address_hash_bytes: `0x${decodeStacksAddress(holder).hash160}`,
                  address_version: 26,
                },
                transfered_ustx: 5,
                memo: '0x',
                burn_txid: burnTxid.slice(2),
                burn_block_height: 1_000,
                vtxindex: 1,
                note: '\udfff',
              },
            },
          }),
        ],
        events: [nodeEvent(burnTxid, 0, 'stx_transfer_event', { sender: SENDER, recipient: holder, amount: '5' })],
      });
      if ((await deadLettersOf('burnchain_op', ['/new_block', opBlock.body])) === 0) {
        expect((await getTx(sys, burnTxid)).body).toMatchObject({
          tx_status: 'success',
          tx_type: 'token_transfer',
          token_transfer: { recipient_address: holder, amount: '5' },
        });
      }

      // A microblock event keeps the node's fields as sent; a newer node's one holds a lone surrogate.
      const tip = await chainTip(sys);
      const streamed = transfer();
      const mb = {
        microblock_hash: hashOf('lone surrogate microblock'),
        microblock_sequence: 0,
        microblock_parent_hash: tip.block_hash,
      };
      const stream = {
        parent_index_block_hash: tip.index_block_hash,
        burn_block_hash: hashOf('lone surrogate stream burn'),
        burn_block_height: 1_000 + tip.block_height,
        burn_block_timestamp: 1_700_000_000 + tip.block_height,
        transactions: [minedTx(streamed, 0, undefined, mb)],
        events: [{ ...transferEvent(streamed.txid, 0), future_field: '\ud83d' }],
      };
      if ((await deadLettersOf('microblock event', ['/new_microblocks', stream])) === 0) {
        expect(await sys.db('microblock_txs').where({ tx_id: streamed.txid }).count({ n: '*' })).toEqual([{ n: '1' }]);
      }
    });
  });

  describe('Clarity values', () => {
    it('serves contract logs nested to the depth limit, hundreds deep, truncated, very long and in upper-case hex', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const contractId = `${SENDER}.logs`;
      const nest = (depth: number) => '0b00000001'.repeat(depth) + cv.uint(1n);
      const deep32 = nest(32);
      const deep300 = nest(300);
      const truncated = cv.tuple([['a', cv.uint(1n)]]).slice(0, -8);
      const long = cv.ascii(Buffer.alloc(300_000, 'x'));
      const values = [deep32, deep300, truncated, long, '0D00000003414243'];
      const block = makeBlock('clarity logs', await chainTip(sys), {
        txs: [minedTx(t, 0)],
        events: values.map((v, i) =>
          nodeEvent(t.txid, i, 'contract_event', {
            contract_identifier: contractId,
            topic: 'print',
            raw_value: v === values[4] ? v : `0x${v}`,
          }),
        ),
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const answer = await getTx(sys, t.txid);
      expect(answer.status).toBe(200);
      const logs = (answer.body.events ?? []).map((e) => e.contract_log?.value);
      expect(logs[0]).toEqual({ hex: `0x${deep32}`, repr: `${'(list '.repeat(32)}u1${')'.repeat(32)}` });
      // Deeper than Clarity allows and cut short: not decodable, but kept as sent.
      expect(logs[1]?.hex).toBe(`0x${deep300}`);
      expect(logs[2]?.hex).toBe(`0x${truncated}`);
      expect(logs[3]).toEqual({ hex: `0x${long}`, repr: `"${'x'.repeat(300_000)}"` });
      expect(logs[4]).toEqual({ hex: '0x0d00000003414243', repr: '"ABC"' });
    });

    it('serves NFT events with their values; neither they nor committed:false events enter address history', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const nft = `${SENDER}.names::name`;
      const [minter, buyer, ghost] = [freshAddress('nft minter'), freshAddress('nft buyer'), freshAddress('nft ghost')];
      const value = cv.tuple([
        ['name', cv.utf8(Buffer.from('café'))],
        ['id', cv.uint(MAX_U128)],
        ['owner', cv.some(cv.principal(`${SENDER}.names`))],
      ]);
      const repr = `(tuple (id u${MAX_U128}) (name u"caf\\u{c3a9}") (owner (some '${SENDER}.names)))`;
      const block = makeBlock('nft events', await chainTip(sys), {
        txs: [minedTx(t, 0)],
        events: [
          nodeEvent(t.txid, 0, 'nft_mint_event', { asset_identifier: nft, recipient: minter, raw_value: `0x${value}` }),
          nodeEvent(t.txid, 1, 'nft_transfer_event', {
            asset_identifier: nft,
            sender: minter,
            recipient: buyer,
            raw_value: `0x${value}`,
          }),
          nodeEvent(t.txid, 2, 'nft_burn_event', { asset_identifier: nft, sender: buyer, raw_value: `0x${value}` }),
          // Not committed: no effect.
          nodeEvent(t.txid, 3, 'nft_mint_event', { asset_identifier: nft, recipient: ghost, raw_value: `0x${value}` }, false),
          nodeEvent(
            t.txid,
            4,
            'ft_transfer_event',
            { asset_identifier: `${SENDER}.t::t`, sender: SENDER, recipient: ghost, amount: '1' },
            false,
          ),
          nodeEvent(t.txid, 5, 'stx_lock_event', { locked_amount: '1', unlock_height: '9', locked_address: ghost }, false),
          nodeEvent(t.txid, 6, 'stx_transfer_event', { sender: SENDER, recipient: ghost, amount: '1' }, false),
        ],
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const answer = await getTx(sys, t.txid);
      expect(answer.body.events?.slice(0, 3)).toEqual([
        {
          event_index: 0,
          tx_id: t.txid,
          event_type: 'non_fungible_token_asset',
          asset: { asset_event_type: 'mint', asset_id: nft, sender: '', recipient: minter, value: { hex: `0x${value}`, repr } },
        },
        {
          event_index: 1,
          tx_id: t.txid,
          event_type: 'non_fungible_token_asset',
          asset: {
            asset_event_type: 'transfer',
            asset_id: nft,
            sender: minter,
            recipient: buyer,
            value: { hex: `0x${value}`, repr },
          },
        },
        {
          event_index: 2,
          tx_id: t.txid,
          event_type: 'non_fungible_token_asset',
          asset: { asset_event_type: 'burn', asset_id: nft, sender: buyer, recipient: '', value: { hex: `0x${value}`, repr } },
        },
      ]);
      // Token events name no one in an address's history, as in the reference API (ADR 0016); an uncommitted STX
      // transfer names no one either.
      for (const who of [minter, buyer, ghost])
        expect(await history(sys, who)).toEqual({ limit: 50, offset: 0, total: 0, results: [] });
      expect((await history(sys, SENDER)).results[0]).toMatchObject({ tx_id: t.txid });
    });
  });

  describe('transactions', () => {
    it('gives the committed events of a failed transaction no effect in address history', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const [tokenTaker, stxTaker] = [freshAddress('failed ft recipient'), freshAddress('failed stx recipient')];
      const block = makeBlock('failed tx events', await chainTip(sys), {
        txs: [minedTx(t, 0, undefined, { status: 'abort_by_response', raw_result: `0x${cv.err(cv.uint(3n))}` })],
        events: [
          nodeEvent(t.txid, 0, 'ft_transfer_event', {
            asset_identifier: `${SENDER}.t::t`,
            sender: SENDER,
            recipient: tokenTaker,
            amount: '5',
          }),
          nodeEvent(t.txid, 1, 'stx_transfer_event', { sender: SENDER, recipient: stxTaker, amount: '5' }),
        ],
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      expect((await getTx(sys, t.txid)).body).toMatchObject({ tx_status: 'abort_by_response', tx_result: { repr: '(err u3)' } });
      // The transaction itself still concerns its sender and the recipient its payload names.
      expect((await history(sys, SENDER)).results.map((r) => r.tx_id)).toContain(t.txid);
      for (const [who, principal] of [
        ['ft_transfer_event recipient', tokenTaker],
        ['stx_transfer_event recipient', stxTaker],
      ] as const) {
        const h = await history(sys, principal);
        expectMessage(`history of the ${who}`, () =>
          expect({ total: h.total, txs: h.results.map((r) => r.tx_id) }).toEqual({ total: 0, txs: [] }),
        );
      }
    });

    it('indexes burnchain STX transfer and stack-stx operations (raw_tx 0x00) with u64 and u128 amounts exact', async () => {
      const mark = await deadLetterMark(sys);
      const [transferTxid, stackTxid] = [hashOf('burn op transfer'), hashOf('burn op stack')];
      const receiver = freshAddress('burn op recipient');
      const addressObject = (address: string) => ({
        address,
        address_hash_bytes: `0x${decodeStacksAddress(address).hash160}`,
        address_version: 26,
      });
      const signerKey = '033b67384665cbc3a36052a2d1c739a6cd1222cd451c499400c9d42e2041a56161';
      const tip = await chainTip(sys);
      const block = makeBlock('burn ops', tip, {
        txs: [
          minedTx({ txid: transferTxid, raw: '0x00' }, 0, undefined, {
            burnchain_op: {
              transfer_stx: {
                burn_block_height: 1_000 + tip.block_height + 1,
                burn_header_hash: hashOf('burn op header').slice(2),
                burn_txid: transferTxid.slice(2),
                memo: '0x68656c6c6f',
                recipient: addressObject(receiver),
                sender: addressObject(SENDER),
                transfered_ustx: bare(MAX_U64.toString()),
                vtxindex: 3,
              },
            },
          }),
          minedTx({ txid: stackTxid, raw: '0x00' }, 1, undefined, {
            burnchain_op: {
              stack_stx: {
                auth_id: 42,
                burn_block_height: 121,
                burn_header_hash: hashOf('burn op header').slice(2),
                burn_txid: stackTxid.slice(2),
                max_amount: bare(MAX_U128),
                num_cycles: 6,
                reward_addr: '16Jswqk47s9PUcyCc88MMVwzgvHPvtEpf',
                sender: addressObject(SENDER),
                signer_key: signerKey,
                stacked_ustx: bare(MAX_U64.toString()),
                vtxindex: 4,
              },
            },
          }),
        ],
        events: [
          nodeEvent(transferTxid, 0, 'stx_transfer_event', {
            sender: SENDER,
            recipient: receiver,
            amount: MAX_U64.toString(),
            memo: '68656c6c6f',
          }),
          nodeEvent(stackTxid, 1, 'stx_lock_event', {
            locked_amount: MAX_U64.toString(),
            unlock_height: '500',
            locked_address: SENDER,
            contract_identifier: 'ST000000000000000000002AMW42H.pox-4',
          }),
        ],
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const transferred = await getTx(sys, transferTxid);
      expect(transferred).toMatchObject({
        status: 200,
        body: {
          tx_status: 'success',
          tx_type: 'token_transfer',
          sender_address: SENDER,
          fee_rate: '0',
          nonce: 0,
          token_transfer: { recipient_address: receiver, amount: MAX_U64.toString(), memo: '0x68656c6c6f' },
        },
      });
      const stacked = await getTx(sys, stackTxid);
      expect(stacked.body).toMatchObject({
        tx_status: 'success',
        tx_type: 'contract_call',
        sender_address: SENDER,
        contract_call: { contract_id: 'ST000000000000000000002AMW42H.pox-4', function_name: 'stack-stx' },
      });
      expect(stacked.body.contract_call?.function_args?.map((a) => a.repr)).toEqual([
        `u${MAX_U64}`,
        `(tuple (hashbytes 0x${'01'.repeat(20)}) (version 0x00))`,
        'u121',
        'u6',
        'none',
        `0x${signerKey}`,
        `u${MAX_U128}`,
        'u42',
      ]);
      // The operation is kept as the node sent it, its u128 exact.
      const op = (await sys.db('txs').where({ tx_id: stackTxid }).first('burnchain_op')) as {
        burnchain_op: { stack_stx: { max_amount: unknown; stacked_ustx: unknown } };
      };
      expect(String(op.burnchain_op.stack_stx.max_amount)).toBe(MAX_U128);
      expect(String(op.burnchain_op.stack_stx.stacked_ustx)).toBe(MAX_U64.toString());
      expect(await history(sys, receiver)).toMatchObject({ total: 1, results: [{ tx_id: transferTxid }] });
    });

    it('serves a sponsored contract call, pending and mined, with the sponsor nonce and the sponsor in its history', async () => {
      const mark = await deadLetterMark(sys);
      const [origin, sponsor] = [signer('sponsored origin'), signer('sponsor')];
      const contractId = `${SENDER}.sponsored-target`;
      const t = buildTx({
        origin,
        nonce: 3n,
        fee: 0n,
        sponsor: { signer: sponsor, fee: 123_456_789n, nonce: 11n },
        payload: payloads.contractCall(contractId, 'do-it', [cv.uint(5n), cv.principal(RECIPIENT)]),
      });
      const expected = {
        tx_id: t.txid,
        nonce: 3,
        fee_rate: '123456789',
        sender_address: origin.address,
        sponsored: true,
        sponsor_address: sponsor.address,
        sponsor_nonce: 11,
        tx_type: 'contract_call',
        contract_call: {
          contract_id: contractId,
          function_name: 'do-it',
          function_args: [
            { hex: `0x${cv.uint(5n)}`, repr: 'u5' },
            { hex: `0x${cv.principal(RECIPIENT)}`, repr: `'${RECIPIENT}` },
          ],
        },
      };
      await send(sys, ['/new_mempool_tx', [t.raw]]);
      await expectNoDeadLetterSince(sys, mark);
      expect((await getTx(sys, t.txid)).body).toMatchObject({ ...expected, tx_status: 'pending' });
      expect(await sys.db('mempool_txs').where({ tx_id: t.txid }).first('nonce', 'sponsor_nonce')).toEqual({
        nonce: '3',
        sponsor_nonce: '11',
      });
      const block = makeBlock('sponsored', await chainTip(sys), { txs: [minedTx(t, 0)] });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      expect((await getTx(sys, t.txid)).body).toMatchObject({ ...expected, tx_status: 'success' });
      expect(await sys.db('txs').where({ tx_id: t.txid }).first('nonce', 'sponsor_nonce')).toEqual({
        nonce: '3',
        sponsor_nonce: '11',
      });
      for (const principal of [origin.address, sponsor.address, contractId]) {
        await expectMessage(principal, async () =>
          expect(await history(sys, principal)).toMatchObject({ total: 1, results: [{ tx_id: t.txid }] }),
        );
      }
    });

    it('puts a sponsored transaction of an orphaned block back in the mempool with its sponsor nonce', async () => {
      const mark = await deadLetterMark(sys);
      const [origin, sponsor] = [signer('orphaned sponsored origin'), signer('orphaned sponsor')];
      const t = buildTx({
        origin,
        nonce: 4n,
        fee: 0n,
        sponsor: { signer: sponsor, fee: 1_000n, nonce: 21n },
        payload: payloads.contractCall(`${SENDER}.sponsored-target`, 'do-it', []),
      });
      // Mined straight away (never announced), then orphaned by a longer branch from the same parent.
      const parent = await chainTip(sys);
      const mined = makeBlock('sponsored, to be orphaned', parent, { txs: [minedTx(t, 0)] });
      const rival = makeBlock('rival of the sponsored block', parent);
      const rivalChild = makeBlock('child of the rival', rival.ref);
      await send(sys, ['/new_block', mined.body], ['/new_block', rival.body], ['/new_block', rivalChild.body]);
      await expectNoDeadLetterSince(sys, mark);
      expect(await chainTip(sys)).toMatchObject(rivalChild.ref);
      expect((await getTx(sys, t.txid)).body).toMatchObject({
        tx_id: t.txid,
        tx_status: 'pending',
        sponsored: true,
        sponsor_address: sponsor.address,
        sponsor_nonce: 21,
      });
    });

    it('serves a contract deployed with a huge contract_interface, and names the arguments of a call to it', async () => {
      const mark = await deadLetterMark(sys);
      const [deployer, caller] = [signer('big abi deployer'), signer('big abi caller')];
      const source = Array.from({ length: 4_000 }, (_, i) => `(define-read-only (f-${i}) (ok u${i})) ;; ${'='.repeat(20)}`).join(
        '\n',
      );
      const deploy = buildTx({ origin: deployer, payload: payloads.smartContract('big-abi', source, 2) });
      const contractId = `${deployer.address}.big-abi`;
      const target = {
        name: 'transfer-many',
        access: 'public',
        args: [
          { name: 'amount', type: 'uint128' },
          { name: 'to', type: 'principal' },
          { name: 'memo', type: { optional: { buffer: { length: 34 } } } },
        ],
        outputs: { type: { response: { ok: 'bool', error: 'uint128' } } },
      };
      const abi = {
        functions: [
          ...Array.from({ length: 4_000 }, (_, i) => ({
            name: `f-${i}`,
            access: 'read_only',
            args: [{ name: `arg-${i}`, type: { tuple: [{ name: 'a', type: { list: { type: 'uint128', length: i } } }] } }],
            outputs: { type: { response: { ok: 'uint128', error: 'none' } } },
          })),
          target,
        ],
        variables: [],
        maps: [],
        fungible_tokens: [],
        non_fungible_tokens: [],
        epoch: 'Epoch25',
        clarity_version: 'Clarity2',
      };
      expect(JSON.stringify(abi).length).toBeGreaterThan(800_000);
      const call = buildTx({
        origin: caller,
        payload: payloads.contractCall(contractId, 'transfer-many', [
          cv.uint(MAX_U128),
          cv.principal(RECIPIENT),
          cv.some(cv.buff('00'.repeat(34))),
        ]),
      });
      const deployBlock = makeBlock('big abi deploy', await chainTip(sys), {
        txs: [minedTx(deploy, 0, undefined, { contract_abi: undefined, contract_interface: abi })],
      });
      const callBlock = makeBlock('big abi call', deployBlock.ref, { txs: [minedTx(call, 0)] });
      await send(sys, ['/new_block', deployBlock.body], ['/new_block', callBlock.body]);
      await expectNoDeadLetterSince(sys, mark);
      const stored = (await sys
        .db('txs')
        .where({ tx_id: deploy.txid })
        .first(sys.db.raw("jsonb_array_length(contract_abi->'functions') AS n"))) as {
        n: number;
      };
      expect(stored.n).toBe(4_001);
      const deployed = await getTx(sys, deploy.txid);
      expect(deployed.body.smart_contract).toEqual({ clarity_version: 2, contract_id: contractId, source_code: source });
      const called = await getTx(sys, call.txid);
      expect(called.body.contract_call).toEqual({
        contract_id: contractId,
        function_name: 'transfer-many',
        function_signature: '(define-public (transfer-many (amount uint) (to principal) (memo (optional (buff 34)))))',
        function_args: [
          { hex: `0x${cv.uint(MAX_U128)}`, repr: `u${MAX_U128}`, name: 'amount', type: 'uint' },
          { hex: `0x${cv.principal(RECIPIENT)}`, repr: `'${RECIPIENT}`, name: 'to', type: 'principal' },
          {
            hex: `0x${cv.some(cv.buff('00'.repeat(34)))}`,
            repr: `(some 0x${'00'.repeat(34)})`,
            name: 'memo',
            type: '(optional (buff 34))',
          },
        ],
      });
    });
  });

  describe('blocks', () => {
    it('serves a Nakamoto block with block_time, tenure_height and signer fields, its tenure change and coinbase, and one with them null', async () => {
      const mark = await deadLetterMark(sys);
      const recorded = loadFixture('fuzzed-transactions-1.tsv')
        .filter((e) => e.path === '/new_block')
        .map((e) => JSON.parse(e.body) as Record<string, unknown> & { block_height: number; transactions: NodeTxBody[] })
        .find((b) => b.block_height === 1)!;
      const [tenureChange, coinbase] = recorded.transactions as [NodeTxBody, NodeTxBody];
      const nakamotoFields = {
        block_time: 1_760_631_086,
        tenure_height: 40,
        cycle_number: 7,
        consensus_hash: hashOf('nakamoto consensus', 20),
        signer_bitvec: '0006000000013f',
        signer_signature: ['00'.repeat(65), '01'.repeat(65)],
        signer_signature_hash: hashOf('nakamoto signer signature hash'),
        miner_signature: `0x${'02'.repeat(65)}`,
        reward_set: { signers: [{ weight: 3, signing_key: '02'.repeat(33), stacked_amt: MAX_U128 }], rewarded_addresses: [] },
      };
      // Nakamoto blocks cost more than 2^31 units of runtime.
      const bigCost = { read_count: 3, read_length: 2_147_483_648, runtime: 9_000_000_000, write_count: 1, write_length: 5 };
      const nakamoto = makeBlock('nakamoto', await chainTip(sys), {
        txs: [{ ...tenureChange, execution_cost: bigCost }, coinbase],
        extra: nakamotoFields,
      });
      const nulls = makeBlock('nakamoto nulls', nakamoto.ref, {
        txs: [minedTx(transfer(), 0)],
        extra: {
          block_time: null,
          tenure_height: null,
          cycle_number: null,
          signer_bitvec: null,
          signer_signature: null,
          reward_set: null,
        },
      });
      await send(sys, ['/new_block', nakamoto.body], ['/new_block', nulls.body]);
      await expectNoDeadLetterSince(sys, mark);

      const first = await apiGet<Record<string, unknown>>(
        sys,
        '/extended/v2/blocks/{height_or_hash}',
        `/extended/v2/blocks/${nakamoto.ref.block_height}`,
      );
      expect(first).toMatchObject({
        status: 200,
        body: {
          height: nakamoto.ref.block_height,
          index_block_hash: nakamoto.ref.index_block_hash,
          block_time: 1_760_631_086,
          block_time_iso: new Date(1_760_631_086_000).toISOString(),
          tenure_height: 40,
          tx_count: 2,
          execution_cost_read_length: 2_147_483_648 + Number(coinbase.execution_cost.read_length),
          execution_cost_runtime: 9_000_000_000 + Number(coinbase.execution_cost.runtime),
        },
      });
      expect(
        await sys
          .db('blocks')
          .where({ index_block_hash: nakamoto.ref.index_block_hash })
          .first('signer_bitvec', 'signer_signature', 'cycle_number'),
      ).toEqual({ signer_bitvec: '0006000000013f', signer_signature: nakamotoFields.signer_signature, cycle_number: 7 });
      const second = await apiGet<Record<string, unknown>>(
        sys,
        '/extended/v2/blocks/{height_or_hash}',
        `/extended/v2/blocks/${nulls.ref.block_height}`,
      );
      const burnTime = nulls.body['burn_block_time'] as number;
      expect(second).toMatchObject({
        status: 200,
        body: { height: nulls.ref.block_height, block_time: burnTime, tenure_height: nulls.ref.block_height, tx_count: 1 },
      });

      const tc = await getTx(sys, tenureChange.txid);
      expect(tc.body).toMatchObject({
        tx_status: 'success',
        tx_type: 'tenure_change',
        block_time: 1_760_631_086,
        execution_cost_read_length: 2_147_483_648,
        execution_cost_runtime: 9_000_000_000,
        tenure_change_payload: {
          tenure_consensus_hash: '0x0669ebb7780ac395578196ee8868f899f1c74ecb',
          prev_tenure_consensus_hash: '0x9abf57d22e1a6ab485563b7ecd291e507755be05',
          burn_view_consensus_hash: '0x0669ebb7780ac395578196ee8868f899f1c74ecb',
          previous_tenure_end: '0x385ecab7e393cbf358a5d5f0497717b9ed4cf3ae62674a63c5d30361cb8fbc67',
          previous_tenure_blocks: 2,
          cause: 'block_found',
          pubkey_hash: `0x${tenureChange.raw_tx.slice(-40)}`,
        },
      });
      const cb = await getTx(sys, coinbase.txid);
      expect(cb.body).toMatchObject({
        tx_status: 'success',
        tx_type: 'coinbase',
        coinbase_payload: {
          data: ZERO_HASH,
          alt_recipient: 'ST1XVSVQN0KP5SDYFNT8E5TXWVW0XZVQEDBMCJ3XM',
          vrf_proof: `0x${coinbase.raw_tx.slice(-160)}`,
        },
      });
    });

    it('applies a block whose hashes and txids are upper case or lack the 0x prefix', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const parent = await chainTip(sys);
      const block = makeBlock('upper case hex', parent, {
        txs: [
          {
            ...minedTx(t, 0),
            txid: t.txid.slice(2).toUpperCase(),
            raw_tx: `0x${t.raw.slice(2).toUpperCase()}`,
            raw_result: '0x0703',
          },
        ],
        events: [
          nodeEvent(t.txid.toUpperCase().replace('0X', '0x'), 0, 'stx_transfer_event', {
            sender: SENDER,
            recipient: RECIPIENT,
            amount: '1000',
            memo: 'ABCDEF',
          }),
        ],
      });
      const body = {
        ...block.body,
        index_block_hash: block.ref.index_block_hash.toUpperCase().replace('0X', '0x'),
        block_hash: block.ref.block_hash.slice(2),
        parent_index_block_hash: parent.index_block_hash.slice(2).toUpperCase(),
        burn_block_hash: (block.body['burn_block_hash'] as string).toUpperCase().replace('0X', '0x'),
      };
      await send(sys, ['/new_block', body]);
      await expectNoDeadLetterSince(sys, mark);
      expect(await chainTip(sys)).toMatchObject(block.ref);
      expect(
        await sys.db('txs').where({ tx_id: t.txid }).first('index_block_hash', 'block_hash', 'canonical', 'event_count'),
      ).toEqual({
        index_block_hash: block.ref.index_block_hash,
        block_hash: block.ref.block_hash,
        canonical: true,
        event_count: 1,
      });
      expect(
        await sys.db('events').where({ index_block_hash: block.ref.index_block_hash }).select('tx_id', 'tx_index', 'memo'),
      ).toEqual([{ tx_id: t.txid, tx_index: 0, memo: '0xabcdef' }]);
      const answer = await getTx(sys, t.txid);
      expect(answer.body).toMatchObject({ tx_status: 'success', block_height: block.ref.block_height, event_count: 1 });
      expect(answer.body.events?.[0]?.asset).toMatchObject({ memo: '0xabcdef' });
    });

    it('ignores unknown fields at every level of a block, and events of a type it does not know', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const holder = freshAddress('unknown fields holder');
      const block = makeBlock('unknown fields', await chainTip(sys), {
        txs: [
          minedTx(t, 0, undefined, {
            execution_cost: { ...NO_COST, runtime: 17, future_cost: 99 },
            post_condition_aborted: false,
            vm_error: null,
            future_tx_field: { nested: [1, { deeper: bare(MAX_U128) }], text: 'x\u0000y' },
          }),
        ],
        events: [
          {
            ...nodeEvent(t.txid, 0, 'stx_transfer_event', {
              sender: SENDER,
              recipient: holder,
              amount: '42',
              memo: '',
              future_body_field: [1, 2],
            }),
            future_event_field: { a: 'b' },
          },
          nodeEvent(t.txid, 1, 'future_event', { sender: SENDER, recipient: holder, amount: '7', anything: { deep: true } }),
        ],
        rewards: [
          {
            from_index_consensus_hash: hashOf('unknown fields reward consensus', 20),
            from_stacks_block_hash: hashOf('unknown fields reward block'),
            recipient: holder,
            miner_address: null,
            coinbase_amount: '1',
            tx_fees_anchored: '2',
            tx_fees_streamed_confirmed: '3',
            tx_fees_streamed_produced: '4',
            future_reward_field: 'x',
          } as MinerReward,
        ],
        extra: {
          anchored_cost: NO_COST,
          confirmed_microblocks_cost: NO_COST,
          future_block_field: { list: Array.from({ length: 100 }, (_, i) => i), big: bare('123456789012345678901234567890') },
          pox_v1_unlock_height: 205,
          pox_v2_unlock_height: 207,
          pox_v3_unlock_height: 210,
        },
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const hash = block.ref.index_block_hash;
      expect(
        await sys
          .db('blocks')
          .where({ index_block_hash: hash })
          .first('block_height', 'tx_count', 'execution_cost_runtime', 'pox_v1_unlock_height'),
      ).toEqual({ block_height: block.ref.block_height, tx_count: 1, execution_cost_runtime: '17', pox_v1_unlock_height: 205 });
      expect(
        await sys.db('txs').where({ tx_id: t.txid }).first('status', 'vm_error', 'event_count', 'execution_cost_runtime'),
      ).toEqual({ status: 'success', vm_error: null, event_count: 2, execution_cost_runtime: '17' });
      expect(await eventRows(hash)).toEqual([
        {
          event_index: 0,
          type: 'stx_transfer_event',
          committed: true,
          sender: SENDER,
          recipient: holder,
          amount: '42',
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
        {
          event_index: 1,
          type: 'future_event',
          committed: true,
          sender: SENDER,
          recipient: holder,
          amount: '7',
          locked_amount: null,
          unlock_height: null,
          memo: null,
        },
      ]);
      expect(
        await sys.db('miner_rewards').where({ index_block_hash: hash }).select('recipient', 'miner_address', 'coinbase_amount'),
      ).toEqual([{ recipient: holder, miner_address: null, coinbase_amount: '1' }]);
      const answer = await getTx(sys, t.txid);
      // The api shows the events it knows.
      expect(answer.body.events).toEqual([
        {
          event_index: 0,
          tx_id: t.txid,
          event_type: 'stx_asset',
          asset: { asset_event_type: 'transfer', sender: SENDER, recipient: holder, amount: '42' },
        },
      ]);
      expect(await history(sys, holder)).toMatchObject({ total: 1, results: [{ tx_id: t.txid }] });
    });
  });

  describe('mempool', () => {
    it('keeps the decodable transactions of a mempool event and skips the ones that do not decode', async () => {
      const mark = await deadLetterMark(sys);
      const owner = signer('mempool mix');
      const make = () => buildTx({ origin: owner, fee: 300n, payload: payloads.tokenTransfer(RECIPIENT, 1n) });
      const [good1, good2, cut, tail] = [make(), make(), make(), make()];
      const undecodable = ['0x', '0xabc', '0x00', 'deadbeef', cut.raw.slice(0, -10), `${tail.raw}00`, `0x${'ff'.repeat(1_000)}`];
      await send(sys, [
        '/new_mempool_tx',
        [undecodable[0]!, good1.raw, ...undecodable.slice(1), good2.raw.toUpperCase().replace('0X', '0x')],
      ]);
      await expectNoDeadLetterSince(sys, mark);
      expect(
        await sys
          .db('mempool_txs')
          .where({ sender_address: owner.address })
          .orderBy('tx_id')
          .select('tx_id', 'status', 'fee_rate'),
      ).toEqual([good1.txid, good2.txid].sort().map((tx_id) => ({ tx_id, status: 'pending', fee_rate: '300' })));
      const list = await apiGet<{ total: number; results: TxAnswer[] }>(
        sys,
        '/extended/v1/tx/mempool',
        `/extended/v1/tx/mempool?sender_address=${owner.address}`,
      );
      expect(list.body.total).toBe(2);
      expect(list.body.results.map((r) => r.tx_id).sort()).toEqual([good1.txid, good2.txid].sort());
      expect((await getTx(sys, cut.txid)).status).toBe(404);
    });
  });
});
