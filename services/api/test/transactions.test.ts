import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import type { DbBlock, DbEvent, DbTx } from '@bda/db';
import {
  BlockRowBuilder,
  CV,
  EventRowBuilder,
  hash32,
  MempoolTxRowBuilder,
  testAddress,
  TxRowBuilder,
} from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertBlocks, insertEvents, insertMempoolTxs, insertTxs, setChainTip } from './support/seed';

let api: ApiHarness;
let blocks: DbBlock[];
let orphan: DbBlock;

const alice = testAddress('alice');
const bob = testAddress('bob');
const contract = `${testAddress('deployer')}.token`;
const vault = `${testAddress('deployer')}.vault`;
/** The shape a node reports a contract's interface in (`contract_abi` of its deploy transaction). */
const VAULT_ABI = {
  functions: [
    {
      name: 'deposit',
      access: 'public',
      args: [
        { name: 'amount', type: 'uint128' },
        { name: 'memo', type: { optional: { buffer: { length: 34 } } } },
      ],
      outputs: { type: { response: { ok: 'bool', error: 'uint128' } } },
    },
    { name: 'pause', access: 'public', args: [], outputs: { type: { response: { ok: 'bool', error: 'uint128' } } } },
  ],
  variables: [],
  maps: [],
  fungible_tokens: [],
  non_fungible_tokens: [],
};
const ftAsset = `${contract}::tok`;
const nftAsset = `${contract}::nft`;

const tx = {} as Record<
  | 'transfer'
  | 'callNamed'
  | 'callUnnamed'
  | 'deployWithAbi'
  | 'callWithAbi'
  | 'callAbiMismatch'
  | 'callNoArgsWithAbi'
  | 'callNoArgsNoAbi'
  | 'deploy'
  | 'coinbase'
  | 'tenure'
  | 'poison'
  | 'reorgedPending'
  | 'orphanOnly'
  | 'both'
  | 'bothOrphan'
  | 'sponsored'
  | 'poxConditions'
  | 'micro'
  | 'failed',
  DbTx
>;
let transferEvents: DbEvent[];

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
  blocks = [];
  for (let h = 1; h <= 5; h++) blocks.push(new BlockRowBuilder().height(h).build());
  orphan = new BlockRowBuilder().height(5).forkTag('orphan').parentFork('main').canonical(false).build();
  await insertBlocks(api.db, [...blocks, orphan]);
  await setChainTip(api.db, blocks[4]!, 5);
  const [, b2, b3, b4, b5] = blocks as [DbBlock, DbBlock, DbBlock, DbBlock, DbBlock];

  tx.transfer = new TxRowBuilder('transfer')
    .inBlock(b3)
    .index(1)
    .sender(alice)
    .tokenTransfer(bob, '5000')
    .with({ event_count: 10 })
    .build();
  tx.callNamed = new TxRowBuilder('call-named')
    .inBlock(b4)
    .contractCall(contract, 'transfer', [
      { ...CV.u100, name: 'amount', type: 'uint' },
      { ...CV.asciiHi, name: 'memo', type: '(string-ascii 34)' },
    ])
    .with({ raw_result: CV.errU3.hex, status: 'abort_by_response', vm_error: null })
    .build();
  tx.callUnnamed = new TxRowBuilder('call-unnamed')
    .inBlock(b4)
    .index(1)
    .contractCall(contract, 'mint', [{ ...CV.u100, name: null, type: 'uint' }])
    .build();
  tx.deploy = new TxRowBuilder('deploy').inBlock(b2).index(0).smartContract(contract).build();
  tx.deployWithAbi = new TxRowBuilder('deploy-vault')
    .inBlock(b2)
    .index(4)
    .smartContract(vault)
    .with({ contract_abi: VAULT_ABI })
    .build();
  // The indexer stores arguments without names (it keeps no ABI lookup); the api names them from the deploy's ABI.
  tx.callWithAbi = new TxRowBuilder('call-vault')
    .inBlock(b4)
    .index(2)
    .contractCall(vault, 'deposit', [
      { ...CV.u100, name: null, type: 'uint' },
      { hex: '0x09', repr: 'none', name: null, type: '(optional UnknownType)' },
    ])
    .build();
  tx.callAbiMismatch = new TxRowBuilder('call-vault-bad')
    .inBlock(b4)
    .index(3)
    .contractCall(vault, 'deposit', [{ ...CV.u100, name: null, type: 'uint' }])
    .build();
  tx.callNoArgsWithAbi = new TxRowBuilder('call-vault-pause').inBlock(b4).index(4).contractCall(vault, 'pause', []).build();
  // No deploy of `contract` carries an ABI: the api does not know the called function.
  tx.callNoArgsNoAbi = new TxRowBuilder('call-token-ping').inBlock(b4).index(5).contractCall(contract, 'ping', []).build();
  tx.coinbase = new TxRowBuilder('coinbase')
    .inBlock(b2)
    .index(1)
    .coinbase({ altRecipient: bob, vrfProof: `0x${'cd'.repeat(80)}` })
    .build();
  tx.tenure = new TxRowBuilder('tenure').inBlock(b2).index(2).tenureChange().build();
  tx.poison = new TxRowBuilder('poison').inBlock(b2).index(3).poisonMicroblock().build();
  tx.reorgedPending = new TxRowBuilder('reorged').inBlock(orphan).index(0).build();
  tx.orphanOnly = new TxRowBuilder('orphan-only').inBlock(orphan).index(1).build();
  tx.both = new TxRowBuilder('both').inBlock(b5).index(0).with({ event_count: 1 }).build();
  tx.bothOrphan = new TxRowBuilder('both').inBlock(orphan).index(2).with({ event_count: 2 }).build();
  tx.sponsored = new TxRowBuilder('sponsored').inBlock(b5).index(1).sponsoredBy(bob, '42').build();
  // pox-5 post conditions, as the indexer's decoder writes them.
  tx.poxConditions = new TxRowBuilder('pox-conditions')
    .inBlock(b5)
    .index(4)
    .with({
      post_conditions: [
        { type: 'staking', principal: { type_id: 'principal_origin' }, condition_code: 'sent_less_than', amount: '9' },
        { type: 'pox', principal: { type_id: 'principal_origin' }, condition_code: 'not_performed' },
        { type: 'pox', principal: { type_id: 'principal_standard', address: bob }, condition_code: 'maybe_performed' },
        { type: 'pox', principal: { type_id: 'principal_origin' }, condition_code: 'performed' },
      ],
    })
    .build();
  tx.micro = new TxRowBuilder('micro')
    .inBlock(b5)
    .index(2)
    .with({ microblock_hash: `0x${'77'.repeat(32)}`, microblock_sequence: 3, microblock_parent_hash: `0x${'76'.repeat(32)}` })
    .build();
  tx.failed = new TxRowBuilder('failed')
    .inBlock(b5)
    .index(3)
    .with({ status: 'abort_by_post_condition', raw_result: CV.errU3.hex, vm_error: 'post-condition check failure' })
    .build();
  await insertTxs(api.db, Object.values(tx));

  const e = () => new EventRowBuilder().forTx(tx.transfer);
  transferEvents = [
    e().index(0).stxTransfer(alice, bob, '5000', '0x68656c6c6f').build(),
    e().index(1).stxMint(bob, '10').build(),
    e().index(2).stxBurn(alice, '11').build(),
    e().index(3).ftTransfer(ftAsset, alice, bob, '12').build(),
    e().index(4).ftMint(ftAsset, bob, '13').build(),
    e().index(5).nftMint(nftAsset, bob, { hex: CV.u100.hex, repr: null }).build(),
    e().index(6).nftBurn(nftAsset, alice, { hex: CV.u100.hex, repr: 'u100' }).build(),
    e().index(7).contractLog(contract, CV.asciiHi).build(),
    e().index(8).stxLock(alice, '1000000', 900_000).build(),
    e().index(9).stxTransfer(alice, bob, '1', '0x').build(),
  ];
  await insertEvents(api.db, [
    ...transferEvents,
    new EventRowBuilder().forTx(tx.both).index(0).stxTransfer(alice, bob, '1').build(),
    new EventRowBuilder().forTx(tx.bothOrphan).index(0).stxTransfer(alice, bob, '999').build(),
    new EventRowBuilder().forTx(tx.bothOrphan).index(1).stxTransfer(alice, bob, '998').build(),
  ]);
  await insertMempoolTxs(api.db, [
    new MempoolTxRowBuilder().id(tx.reorgedPending.tx_id).receivedAt('2024-05-02T10:00:00.000Z').build(),
    new MempoolTxRowBuilder('dropped').status('dropped_replace_by_fee', hash32('tx', 'replacement')).build(),
    new MempoolTxRowBuilder('dropped-unknown').status('dropped_unknown').build(),
    new MempoolTxRowBuilder('pending-sponsored').sponsoredBy(alice, '8').build(),
  ]);
});

afterAll(async () => {
  await api?.close();
});

const get = (txId: string, query = '') => api.get(`/extended/v1/tx/${txId}${query}`);

describe('GET /extended/v1/tx/{tx_id} for mined transactions', () => {
  it('returns a token transfer in the reference shape', async () => {
    const t = tx.transfer;
    const b3 = blocks[2]!;
    const res = await get(t.tx_id, '?event_limit=1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tx_id: t.tx_id,
      nonce: 0,
      fee_rate: '180',
      sender_address: alice,
      sponsored: false,
      post_condition_mode: 'deny',
      post_conditions: [],
      anchor_mode: 'any',
      block_hash: b3.block_hash,
      block_height: 3,
      block_time: Number(b3.burn_block_time),
      block_time_iso: new Date(Number(b3.burn_block_time) * 1000).toISOString(),
      burn_block_time: Number(b3.burn_block_time),
      burn_block_time_iso: new Date(Number(b3.burn_block_time) * 1000).toISOString(),
      burn_block_height: b3.burn_block_height,
      parent_block_hash: blocks[1]!.block_hash,
      parent_burn_block_time: Number(blocks[1]!.burn_block_time),
      parent_burn_block_time_iso: new Date(Number(blocks[1]!.burn_block_time) * 1000).toISOString(),
      canonical: true,
      tx_index: 1,
      tx_status: 'success',
      tx_result: CV.okTrue,
      event_count: 10,
      is_unanchored: false,
      microblock_hash: '',
      microblock_sequence: 2147483647,
      microblock_canonical: true,
      execution_cost_read_count: 0,
      execution_cost_read_length: 0,
      execution_cost_runtime: 0,
      execution_cost_write_count: 0,
      execution_cost_write_length: 0,
      vm_error: null,
      events: [
        {
          event_index: 0,
          event_type: 'stx_asset',
          tx_id: t.tx_id,
          asset: { asset_event_type: 'transfer', sender: alice, recipient: bob, amount: '5000', memo: '0x68656c6c6f' },
        },
      ],
      tx_type: 'token_transfer',
      token_transfer: { recipient_address: bob, amount: '5000', memo: `0x${'00'.repeat(34)}` },
    });
  });

  it('maps every kind of event', async () => {
    const res = await get(tx.transfer.tx_id, '?event_limit=100');
    const events = res.body.events;
    expect(events).toHaveLength(10);
    const id = tx.transfer.tx_id;
    expect(events.slice(1)).toEqual([
      {
        event_index: 1,
        event_type: 'stx_asset',
        tx_id: id,
        asset: { asset_event_type: 'mint', sender: '', recipient: bob, amount: '10' },
      },
      {
        event_index: 2,
        event_type: 'stx_asset',
        tx_id: id,
        asset: { asset_event_type: 'burn', sender: alice, recipient: '', amount: '11' },
      },
      {
        event_index: 3,
        event_type: 'fungible_token_asset',
        tx_id: id,
        asset: { asset_event_type: 'transfer', asset_id: ftAsset, sender: alice, recipient: bob, amount: '12' },
      },
      {
        event_index: 4,
        event_type: 'fungible_token_asset',
        tx_id: id,
        asset: { asset_event_type: 'mint', asset_id: ftAsset, sender: '', recipient: bob, amount: '13' },
      },
      {
        event_index: 5,
        event_type: 'non_fungible_token_asset',
        tx_id: id,
        asset: { asset_event_type: 'mint', asset_id: nftAsset, sender: '', recipient: bob, value: CV.u100 },
      },
      {
        event_index: 6,
        event_type: 'non_fungible_token_asset',
        tx_id: id,
        asset: { asset_event_type: 'burn', asset_id: nftAsset, sender: alice, recipient: '', value: CV.u100 },
      },
      {
        event_index: 7,
        event_type: 'smart_contract_log',
        tx_id: id,
        contract_log: { contract_id: contract, topic: 'print', value: CV.asciiHi },
      },
      {
        event_index: 8,
        event_type: 'stx_lock',
        tx_id: id,
        stx_lock_event: { locked_amount: '1000000', unlock_height: 900000, locked_address: alice },
      },
      // An empty memo is left out, as the reference does.
      {
        event_index: 9,
        event_type: 'stx_asset',
        tx_id: id,
        asset: { asset_event_type: 'transfer', sender: alice, recipient: bob, amount: '1' },
      },
    ]);
  });

  it('gives the default page of events for event_limit=0 and accepts unanchored, as the reference API does', async () => {
    const res = await get(tx.transfer.tx_id, '?event_limit=0&event_offset=8&unanchored=false');
    expect(res.status).toBe(200);
    expect(res.body.events.map((e: { event_index: number }) => e.event_index)).toEqual([8, 9]);
  });

  it('pages events with event_offset and event_limit (default 20, max 100)', async () => {
    const page = await get(tx.transfer.tx_id, '?event_offset=3&event_limit=2');
    expect(page.body.events.map((e: { event_index: number }) => e.event_index)).toEqual([3, 4]);
    expect(page.body.event_count).toBe(10);
    const past = await get(tx.transfer.tx_id, '?event_offset=10');
    expect(past.body.events).toEqual([]);
    expect((await get(tx.transfer.tx_id, '?event_limit=100')).status).toBe(200);
  });

  it.each([
    ['event_limit=-1', 'event_limit'],
    ['unanchored=TRUE', 'unanchored'],
    ['event_limit=101', 'event_limit'],
    ['event_limit=ten', 'event_limit'],
    ['event_limit=1&event_limit=2', 'event_limit'],
    ['event_offset=-5', 'event_offset'],
    ['event_offset=0.5', 'event_offset'],
  ])('responds with 400 naming the parameter for %s', async (query, name) => {
    const res = await get(tx.transfer.tx_id, `?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`query parameter ${name}`);
  });

  it('accepts the id without 0x and in upper case', async () => {
    for (const id of [
      tx.transfer.tx_id.slice(2),
      tx.transfer.tx_id.toUpperCase().replace('0X', '0x'),
      `0X${tx.transfer.tx_id.slice(2)}`,
    ]) {
      const res = await get(id);
      expectMessage(id, () => expect(res.status).toBe(200));
      expect(res.body.tx_id).toBe(tx.transfer.tx_id);
    }
  });

  it('derives the function signature of a contract call from named arguments', async () => {
    const res = await get(tx.callNamed.tx_id);
    expect(res.body).toMatchObject({
      tx_type: 'contract_call',
      tx_status: 'abort_by_response',
      tx_result: CV.errU3,
      contract_call: {
        contract_id: contract,
        function_name: 'transfer',
        function_signature: '(define-public (transfer (amount uint) (memo (string-ascii 34))))',
        function_args: [
          { hex: CV.u100.hex, repr: 'u100', name: 'amount', type: 'uint' },
          { hex: CV.asciiHi.hex, repr: '"hi"', name: 'memo', type: '(string-ascii 34)' },
        ],
      },
    });
    const unnamed = await get(tx.callUnnamed.tx_id);
    expect(unnamed.body.contract_call).toEqual({
      contract_id: contract,
      function_name: 'mint',
      function_signature: '',
      function_args: [{ hex: CV.u100.hex, repr: 'u100', name: '', type: 'uint' }],
    });
  });

  it('leaves function_args out of a contract call with exclude_function_args=true, keeping the signature', async () => {
    const res = await get(tx.callNamed.tx_id, '?exclude_function_args=true');
    expect(res.body.contract_call).toEqual({
      contract_id: contract,
      function_name: 'transfer',
      function_signature: '(define-public (transfer (amount uint) (memo (string-ascii 34))))',
    });
    expect((await get(tx.callNamed.tx_id, '?exclude_function_args=false')).body.contract_call.function_args).toHaveLength(2);
    const bad = await get(tx.callNamed.tx_id, '?exclude_function_args=yes');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('exclude_function_args');
  });

  it("names and types a contract call's arguments from the called contract's ABI", async () => {
    const res = await get(tx.callWithAbi.tx_id);
    expect(res.body.contract_call).toEqual({
      contract_id: vault,
      function_name: 'deposit',
      function_signature: '(define-public (deposit (amount uint) (memo (optional (buff 34)))))',
      function_args: [
        { hex: CV.u100.hex, repr: 'u100', name: 'amount', type: 'uint' },
        { hex: '0x09', repr: 'none', name: 'memo', type: '(optional (buff 34))' },
      ],
    });
    // Arguments that do not match the ABI's function are left as stored.
    const mismatch = await get(tx.callAbiMismatch.tx_id);
    expect(mismatch.body.contract_call).toMatchObject({
      function_signature: '',
      function_args: [{ hex: CV.u100.hex, repr: 'u100', name: '', type: 'uint' }],
    });
  });

  it('gives an empty function_signature for a call without arguments to a function whose ABI is unknown', async () => {
    const res = await get(tx.callNoArgsNoAbi.tx_id);
    expect(res.body.contract_call).toEqual({
      contract_id: contract,
      function_name: 'ping',
      function_signature: '',
      function_args: [],
    });
    // With the ABI known, the signature is the function's definition, as the reference writes it.
    const known = await get(tx.callNoArgsWithAbi.tx_id);
    expect(known.body.contract_call).toEqual({
      contract_id: vault,
      function_name: 'pause',
      function_signature: '(define-public (pause ))',
      function_args: [],
    });
  });

  it('returns the payload of every other transaction type', async () => {
    expect((await get(tx.deploy.tx_id)).body).toMatchObject({
      tx_type: 'smart_contract',
      smart_contract: { contract_id: contract, source_code: '(define-public (hello) (ok true))', clarity_version: 2 },
    });
    expect((await get(tx.coinbase.tx_id)).body).toMatchObject({
      tx_type: 'coinbase',
      coinbase_payload: { data: `0x${'00'.repeat(32)}`, alt_recipient: bob, vrf_proof: `0x${'cd'.repeat(80)}` },
    });
    expect((await get(tx.tenure.tx_id)).body).toMatchObject({
      tx_type: 'tenure_change',
      tenure_change_payload: { previous_tenure_blocks: 7, cause: 'block_found', pubkey_hash: `0x${'55'.repeat(20)}` },
    });
    expect((await get(tx.poison.tx_id)).body).toMatchObject({
      tx_type: 'poison_microblock',
      poison_microblock: { microblock_header_1: `0x${'aa'.repeat(20)}`, microblock_header_2: `0x${'bb'.repeat(20)}` },
    });
  });

  it('shows the sponsor of a sponsored transaction', async () => {
    const res = await get(tx.sponsored.tx_id);
    expect(res.body).toMatchObject({ sponsored: true, sponsor_address: bob });
    expect((await get(tx.transfer.tx_id)).body).not.toHaveProperty('sponsor_address');
  });

  it('returns sponsor_nonce on a sponsored transaction', async () => {
    expect((await get(tx.sponsored.tx_id)).body).toMatchObject({ sponsored: true, sponsor_address: bob, sponsor_nonce: 42 });
    expect((await get(tx.transfer.tx_id)).body).not.toHaveProperty('sponsor_nonce');
  });

  it('returns pox post conditions with the reference condition codes', async () => {
    const res = await get(tx.poxConditions.tx_id);
    expect(res.body.post_conditions.map((pc: { condition_code: string }) => pc.condition_code)).toEqual([
      'sent_less_than',
      'not_performed',
      'maybe_performed',
      'performed',
    ]);
  });

  it('shows the microblock a transaction was streamed in', async () => {
    const res = await get(tx.micro.tx_id);
    expect(res.body).toMatchObject({
      microblock_hash: `0x${'77'.repeat(32)}`,
      microblock_sequence: 3,
      microblock_canonical: true,
    });
  });

  it('shows the VM error of a failed transaction', async () => {
    const res = await get(tx.failed.tx_id);
    expect(res.body).toMatchObject({ tx_status: 'abort_by_post_condition', vm_error: 'post-condition check failure' });
  });

  it('shows only the canonical copy of a transaction mined on two branches, with its own events', async () => {
    const res = await get(tx.both.tx_id, '?event_limit=100');
    expect(res.body).toMatchObject({ block_hash: blocks[4]!.block_hash, canonical: true, event_count: 1 });
    expect(res.body.events.map((e: { asset: { amount: string } }) => e.asset.amount)).toEqual(['1']);
  });

  it('carries the chain tip as ETag and answers 304 while it has not moved', async () => {
    const res = await get(tx.transfer.tx_id);
    const etag = res.headers.get('etag')!;
    expect(etag).toBe(`W/"${blocks[4]!.index_block_hash}"`);
    const again = await api.get(`/extended/v1/tx/${tx.transfer.tx_id}`, {
      headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
  });
});

describe('GET /extended/v1/tx/{tx_id} for transactions not mined canonically', () => {
  it('returns the mempool view of a transaction whose block was orphaned', async () => {
    const res = await get(tx.reorgedPending.tx_id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tx_id: tx.reorgedPending.tx_id,
      nonce: 5,
      fee_rate: '300',
      sender_address: testAddress('mempool-sender'),
      sponsored: false,
      post_condition_mode: 'deny',
      post_conditions: [],
      anchor_mode: 'any',
      tx_status: 'pending',
      replaced_by_tx_id: null,
      receipt_time: Date.parse('2024-05-02T10:00:00.000Z') / 1000,
      receipt_time_iso: '2024-05-02T10:00:00.000Z',
      tx_type: 'token_transfer',
      token_transfer: { recipient_address: testAddress('recipient'), amount: '25', memo: `0x${'00'.repeat(34)}` },
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toBeNull();
  });

  it('returns a dropped mempool transaction with its drop reason', async () => {
    const res = await get(hash32('tx', 'dropped'));
    expect(res.body).toMatchObject({ tx_status: 'dropped_replace_by_fee', replaced_by_tx_id: hash32('tx', 'replacement') });
  });

  it('shows a drop for a reason the reference API does not name as dropped_stale_garbage_collect', async () => {
    const res = await get(hash32('tx', 'dropped-unknown'));
    expect(res.body).toMatchObject({ tx_status: 'dropped_stale_garbage_collect', replaced_by_tx_id: null });
    const stored = await api.db('mempool_txs').where('tx_id', hash32('tx', 'dropped-unknown')).first('status');
    expect(stored).toEqual({ status: 'dropped_unknown' });
  });

  it('returns sponsor_nonce on a sponsored mempool transaction', async () => {
    const res = await get(hash32('tx', 'pending-sponsored'));
    expect(res.body).toMatchObject({ tx_status: 'pending', sponsored: true, sponsor_address: alice, sponsor_nonce: 8 });
    expect((await get(tx.reorgedPending.tx_id)).body).not.toHaveProperty('sponsor_nonce');
  });

  it('responds with 404 for a transaction mined only in an orphaned block and not in the mempool', async () => {
    const res = await get(tx.orphanOnly.tx_id);
    expect(res.status).toBe(404);
    expect(res.body.message).toContain('tx_id');
  });

  it('responds with 404 when the transaction is unknown', async () => {
    const res = await get(`0x${'12'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'not_found',
      message: `tx_id: transaction 0x${'12'.repeat(32)} is neither mined in a canonical block nor in the mempool`,
    });
  });

  it.each([['xyz'], ['0x1234'], [`0x${'a'.repeat(63)}`], [`${'a'.repeat(66)}`], [`0x${'z'.repeat(64)}`], ['0x']])(
    'responds with 400 naming tx_id for %s',
    async (id) => {
      const res = await get(id);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^tx_id: /);
    },
  );
});
