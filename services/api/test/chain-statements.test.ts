/**
 * How the chain reads reach PostgreSQL (`src/datastore/read-statement.ts`): each response is one statement, so one snapshot, and
 * the parts a statement carries side by side (events as one JSON array, the tip, the mempool's row under a prefix,
 * ABIs once per contract) come out as the separate queries gave them.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import pg from 'pg';
import type { DbBlock, DbEvent, DbMempoolTx, DbTx } from '@bda/db';
import {
  addressTxRow,
  BlockRowBuilder,
  EventRowBuilder,
  MempoolTxRowBuilder,
  testAddress,
  TxRowBuilder,
} from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertAddressTxs, insertBlocks, insertEvents, insertMempoolTxs, insertTxs, setChainTip } from './support/seed';
import { getAddressHistory } from '../src/chain/datastore/address-txs';
import { getPendingMempoolPage } from '../src/chain/datastore/mempool';
import { getTxById } from '../src/chain/datastore/txs';

let api: ApiHarness;
let blocks: DbBlock[];
const carol = testAddress('carol');
const dave = testAddress('dave');
const pool = `${testAddress('deployer')}.pool`;
const POOL_ABI = {
  functions: [{ name: 'swap', access: 'public', args: [{ name: 'dx', type: 'uint128' }], outputs: { type: 'bool' } }],
  variables: [],
  maps: [],
  fungible_tokens: [],
  non_fungible_tokens: [],
};
const arg = { hex: '0x0100000000000000000000000000000007', repr: 'u7', name: null, type: 'uint128' };
let deploy: DbTx;
let calls: DbTx[];
let withEvents: DbTx;
let events: DbEvent[];
let pending: DbMempoolTx[];

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
  blocks = [];
  for (let h = 1; h <= 4; h++) blocks.push(new BlockRowBuilder().height(h).build());
  await insertBlocks(api.db, blocks);
  await setChainTip(api.db, blocks[3]!, 4);
  deploy = new TxRowBuilder('pool-deploy').inBlock(blocks[0]!).smartContract(pool).with({ contract_abi: POOL_ABI }).build();
  calls = [0, 1, 2].map((i) =>
    new TxRowBuilder(`swap-${i}`).inBlock(blocks[1]!).index(i).sender(carol).contractCall(pool, 'swap', [arg]).build(),
  );
  withEvents = new TxRowBuilder('events')
    .inBlock(blocks[2]!)
    .sender(carol)
    .tokenTransfer(dave, '1')
    .with({ event_count: 6 })
    .build();
  // Every kind of column: numeric and int8 beyond a double's precision, nulls, text that JSON escapes.
  events = [
    new EventRowBuilder()
      .forTx(withEvents)
      .index(0)
      .stxTransfer(carol, dave, '123456789012345678901234567890', '0x6d656d6f')
      .build(),
    new EventRowBuilder().forTx(withEvents).index(1).stxLock(carol, '99999999999999999999', 4_000_000_000).build(),
    new EventRowBuilder().forTx(withEvents).index(2).with({ unlock_height: '9223372036854775807' }).stxMint(dave, '1').build(),
    new EventRowBuilder()
      .forTx(withEvents)
      .index(3)
      .contractLog(pool, { hex: '0x0d0000000568656c6c6f', repr: '"caf\u00e9 \\ \\" \t \n \u2028 \u{1F600}"' })
      .build(),
    new EventRowBuilder().forTx(withEvents).index(4).ftMint(`${pool}::lp`, dave, '18446744073709551616').build(),
    new EventRowBuilder()
      .forTx(withEvents)
      .index(5)
      .nftMint(`${pool}::nft`, dave, { hex: '0x0100000000000000000000000000000001', repr: null })
      .build(),
  ];
  await insertTxs(api.db, [deploy, ...calls, withEvents]);
  await insertEvents(api.db, events);
  await insertAddressTxs(
    api.db,
    [...calls, withEvents].map((t) => addressTxRow(carol, t)),
  );
  pending = [
    ...[0, 1].map((i) =>
      new MempoolTxRowBuilder(`pending-swap-${i}`)
        .sender(dave)
        .receivedAt(`2024-05-01T12:00:0${i}.000Z`)
        .with({ type_id: 'contract_call', payload: { contract_id: pool, function_name: 'swap', function_args: [arg] } })
        .build(),
    ),
    new MempoolTxRowBuilder('pending-sponsored')
      .sender(dave)
      .receivedAt('2024-05-01T11:59:59.000Z')
      .sponsoredBy(carol, '9223372036854775807')
      .with({ fee_rate: '340282366920938463463374607431768211455' })
      .build(),
  ];
  await insertMempoolTxs(api.db, pending);
});

afterAll(async () => {
  await api?.close();
});

describe('one statement per response', () => {
  it('answers each chain endpoint with a single statement (its own snapshot): no transaction, no second read', async () => {
    const paths = [
      '/extended',
      '/extended/v2/blocks',
      `/extended/v2/blocks?cursor=${blocks[2]!.index_block_hash}&offset=1&limit=1`,
      `/extended/v2/blocks?cursor=0x${'ab'.repeat(32)}`,
      '/extended/v2/blocks/2',
      '/extended/v2/blocks/latest',
      `/extended/v2/blocks/${blocks[1]!.block_hash}`,
      `/extended/v1/tx/${withEvents.tx_id}`,
      `/extended/v1/tx/${calls[0]!.tx_id}`,
      `/extended/v1/tx/${pending[0]!.tx_id}`,
      `/extended/v1/tx/0x${'cd'.repeat(32)}`,
      '/extended/v1/tx/mempool',
      `/extended/v1/tx/mempool?address=${dave}&order_by=fee`,
      `/extended/v1/address/${carol}/transactions`,
      `/extended/v1/address/${carol}/transactions?height=2`,
      `/extended/v1/address/${carol}/transactions?until_block=2`,
      `/extended/v1/address/${carol}/transactions?until_block=${blocks[1]!.index_block_hash}`,
      `/extended/v1/address/${carol}/transactions?until_block=0x${'ef'.repeat(32)}`,
    ];
    const spy = jest.spyOn(pg.Client.prototype, 'query');
    try {
      for (const path of paths) {
        spy.mockClear();
        const res = await api.get(path);
        expectMessage(path, () => expect([200, 404]).toContain(res.status));
        const sent = spy.mock.calls.map(([q]) => q as { name?: string });
        expectMessage(path, () => expect(sent).toHaveLength(1));
        expectMessage(path, () => expect(sent[0]!.name).toMatch(/^chain_/));
      }
    } finally {
      spy.mockRestore();
    }
  });
});

describe('rows as node-postgres parses them', () => {
  it('builds the events of a transaction as the rows of `events` come out of a query', async () => {
    const found = await getTxById(api.db, withEvents.tx_id, { limit: 20, offset: 0 });
    const rows = await api.db('events').select('*').where({ tx_id: withEvents.tx_id }).orderBy('event_index');
    expect(found).toMatchObject({ kind: 'mined' });
    expect(found!.kind === 'mined' && found!.events).toStrictEqual(rows);
    const page = await getTxById(api.db, withEvents.tx_id, { limit: 2, offset: 3 });
    expect(page!.kind === 'mined' && page!.events).toStrictEqual(rows.slice(3, 5));
  });

  it('gives the mined row its columns with their types, and the mempool row unprefixed', async () => {
    const found = await getTxById(api.db, withEvents.tx_id, { limit: 1, offset: 0 });
    const [row] = await api.db('txs').where({ tx_id: withEvents.tx_id });
    const { raw_tx, contract_abi, burnchain_op, ...served } = row as DbTx;
    void [raw_tx, contract_abi, burnchain_op];
    expect(found!.kind === 'mined' && found!.tx).toMatchObject({ ...served, parent_block_hash: blocks[1]!.block_hash });
    const mempool = await getTxById(api.db, pending[2]!.tx_id, { limit: 1, offset: 0 });
    const [m] = await api.db('mempool_txs').where({ tx_id: pending[2]!.tx_id });
    const { raw_tx: mempoolRaw, ...mempoolServed } = m as DbMempoolTx;
    void mempoolRaw;
    expect(mempool).toStrictEqual({ kind: 'mempool', mempoolTx: mempoolServed, abis: new Map() });
  });
});

describe('contract ABIs', () => {
  it('names the calls of an address’s page from the called contract’s ABI (kept texts), and carries each ABI on one mempool row', async () => {
    // The page's kept texts, joined in order by the statement (ADR 0043).
    const history = await getAddressHistory(api.db, carol, { limit: 20, offset: 0 });
    const texts = JSON.parse(`[${history.results}]`) as Array<{ tx_id: string; contract_call: unknown }>;
    expect(texts.map((t) => t.tx_id)).toEqual([withEvents, ...[...calls].reverse()].map((t) => t.tx_id));
    for (const text of texts.slice(1)) {
      expect(text.contract_call).toEqual({
        contract_id: pool,
        function_name: 'swap',
        function_signature: '(define-public (swap (dx uint)))',
        function_args: [{ hex: arg.hex, repr: arg.repr, name: 'dx', type: 'uint' }],
      });
    }
    // The mempool page's kept texts (ADR 0041): its calls named from the same ABI.
    const mempool = await getPendingMempoolPage(api.db, { limit: 20, offset: 0 });
    const listed = JSON.parse(`[${mempool.texts}]`) as Array<{ tx_id: string; contract_call?: { function_signature: string } }>;
    expect(listed.map((t) => t.tx_id)).toEqual([pending[1], pending[0], pending[2]].map((t) => t!.tx_id));
    expect(listed.filter((t) => t.contract_call)).toHaveLength(2);
    for (const t of listed.filter((t) => t.contract_call)) {
      expect(t.contract_call!.function_signature).toBe('(define-public (swap (dx uint)))');
    }
  });
});
