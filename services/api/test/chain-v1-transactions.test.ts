/**
 * `/extended/v1/tx` (list and filters), `/multiple`, `/events`, `/{tx_id}/raw`, `/block/{hash}`, `/block_height/{h}`
 * and `/mempool/stats` over recorded fixtures replayed through the real observer and indexer. Expectations come from
 * the fixture's raw events (chain-fixture-oracle.ts), each transaction decoded here with @stacks/transactions.
 */
import request from 'supertest';
import {
  addressFromVersionHash,
  addressHashModeToVersion,
  addressToString,
  deserializeTransaction,
  PayloadType,
} from '@stacks/transactions';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MIGRATIONS, principalEventRowsSql } from '@bda/db';
import { testInfra, expectMessage } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';
import { loadRecordedEvents } from './support/replayed-database';
import { expectKeptTxTextsAsRendered } from './support/kept-tx-json';
import { blockTxOrder, chainOracle, v1TxOrder, type ChainOracle, type OracleBlock } from './chain-fixture-oracle';

const WARNING = '299 - "Deprecated: Endpoint is deprecated"';
const ANCHORED = 2147483647;

const TYPE_NAMES: Record<number, string> = {
  [PayloadType.TokenTransfer]: 'token_transfer',
  [PayloadType.SmartContract]: 'smart_contract',
  [PayloadType.VersionedSmartContract]: 'smart_contract',
  [PayloadType.ContractCall]: 'contract_call',
  [PayloadType.PoisonMicroblock]: 'poison_microblock',
  [PayloadType.Coinbase]: 'coinbase',
  [PayloadType.CoinbaseToAltRecipient]: 'coinbase',
  [PayloadType.NakamotoCoinbase]: 'coinbase',
  [PayloadType.TenureChange]: 'tenure_change',
};

interface Decoded {
  tx_id: string;
  type: string;
  sender: string;
  fee: bigint;
  nonce: bigint;
  bytes: number;
  raw: string;
}

function decode(raw: string): Decoded {
  const tx = deserializeTransaction(raw.replace(/^0x/, ''));
  const cond = tx.auth.spendingCondition;
  const network = tx.transactionVersion === 0 ? 'mainnet' : 'testnet';
  const sender = addressToString(addressFromVersionHash(addressHashModeToVersion(cond.hashMode, network), cond.signer));
  return {
    tx_id: `0x${tx.txid()}`,
    type: TYPE_NAMES[tx.payload.payloadType]!,
    sender,
    fee: BigInt(cond.fee),
    nonce: BigInt(cond.nonce),
    bytes: raw.replace(/^0x/, '').length / 2,
    raw: raw.toLowerCase().startsWith('0x') ? raw.toLowerCase() : `0x${raw.toLowerCase()}`,
  };
}

interface MinedTx extends Decoded {
  block: OracleBlock;
  tx_index: number;
  seq: number;
}

/** Every canonical transaction, newest first in the list's default order (height, microblock sequence, position). */
function canonicalTxs(oracle: ChainOracle): MinedTx[] {
  const out: MinedTx[] = [];
  for (const b of oracle.canonical) {
    for (const t of b.txs)
      out.push({ ...decode(t.raw_tx), block: b, tx_index: t.tx_index, seq: t.microblock_sequence ?? ANCHORED });
  }
  return out.sort((x, y) => y.block.block_height - x.block.block_height || y.seq - x.seq || y.tx_index - x.tx_index);
}

/** At most `n` items spread evenly over `items`, the first and the last among them: keeps the per-item loops short. */
function sample<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]!);
}

/** PostgreSQL's `percentile_cont`: linear interpolation between the closest ranks. */
function percentileCont(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  const pos = p * (v.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo]! + (v[hi]! - v[lo]!) * (pos - lo);
}

/** A node event of a recorded `/new_block`, as the node posts it. */
type RawEvent = { txid: string; event_index: number; type: string } & Record<string, unknown>;

const ASSET_EVENT_TYPES = new Set(
  ['stx', 'ft', 'nft'].flatMap((a) => ['transfer', 'mint', 'burn'].map((k) => `${a}_${k}_event`)),
);
const EVENT_GROUPS: Record<string, string> = {
  contract_event: 'smart_contract_log',
  stx_lock_event: 'stx_lock',
  ...Object.fromEntries(
    [...ASSET_EVENT_TYPES].map((t) => [
      t,
      t.startsWith('stx') ? 'stx_asset' : t.startsWith('ft') ? 'fungible_token_asset' : 'non_fungible_token_asset',
    ]),
  ),
};

/**
 * Each principal's events as the reference's `/extended/v1/tx/events?address=` lists them, from the recording's raw
 * `/new_block` bodies of the canonical blocks (fork choice by the oracle): the asset events it sends or receives, its
 * STX locks, the logs of a contract it is; newest first (height, then index in the block); as `tx_id:event_index`
 * with the type group.
 */
function principalEvents(fixture: string, oracle: ChainOracle): Map<string, Array<{ key: string; group: string }>> {
  const canonical = new Map(oracle.canonical.map((b) => [b.index_block_hash, b.block_height]));
  const seen = new Set<string>();
  const rows: Array<{ principal: string; height: number; index: number; key: string; group: string }> = [];
  for (const ev of loadRecordedEvents(fixture)) {
    if (ev.path !== '/new_block') continue;
    const body = JSON.parse(ev.body) as { index_block_hash: string; events: RawEvent[] };
    const hash = body.index_block_hash.toLowerCase();
    const height = canonical.get(hash);
    if (height === undefined || seen.has(hash)) continue;
    seen.add(hash);
    for (const e of body.events) {
      const group = EVENT_GROUPS[e.type];
      if (!group) continue;
      const data = (e[e.type] ?? {}) as Record<string, string | undefined>;
      const named =
        e.type === 'contract_event'
          ? [data['contract_identifier']]
          : e.type === 'stx_lock_event'
            ? [data['locked_address']]
            : [data['sender'], data['recipient']];
      for (const principal of new Set(named.filter((p): p is string => typeof p === 'string'))) {
        rows.push({ principal, height, index: e.event_index, key: `${e.txid.toLowerCase()}:${e.event_index}`, group });
      }
    }
  }
  rows.sort((a, b) => b.height - a.height || b.index - a.index);
  const out = new Map<string, Array<{ key: string; group: string }>>();
  for (const r of rows) {
    const list = out.get(r.principal) ?? [];
    list.push({ key: r.key, group: r.group });
    out.set(r.principal, list);
  }
  return out;
}

describe.each(['mocknet.tsv', 'mainnet-reorg-scenario1.tsv', 'epoch-3-transition.tsv'])('v1 transactions over %s', (fixture) => {
  let api: ApiHarness;
  let oracle: ChainOracle;
  let txs: MinedTx[];

  beforeAll(async () => {
    oracle = chainOracle(fixture);
    txs = canonicalTxs(oracle);
    api = await startApi(testInfra().databaseUrl, { fixture });
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  const ids = (body: { results: Array<{ tx_id: string }> }) => body.results.map((t) => t.tx_id);

  it('keeps each canonical transaction’s list text as the api renders it by id, and migration 095 fills the same (tx_list_json)', async () => {
    expect(await expectKeptTxTextsAsRendered(api.db)).toBe(txs.length);
  });

  /** Every page of a list, `limit` at a time, with the totals each page gave. */
  async function all(path: string, limit: number): Promise<{ ids: string[]; totals: number[] }> {
    const out: string[] = [];
    const totals: number[] = [];
    for (let offset = 0; ; offset += limit) {
      const res = await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}&offset=${offset}`);
      expectMessage(path, () => expect(res.status).toBe(200));
      totals.push(res.body.total);
      out.push(...ids(res.body));
      if (res.body.results.length < limit) return { ids: out, totals };
    }
  }

  it('lists every canonical transaction newest first, with the canonical count as total', async () => {
    const first = await api.get('/extended/v1/tx');
    expect(first.status).toBe(200);
    expect(first.headers.get('warning')).toBe(WARNING);
    expect(first.body).toMatchObject({ limit: 20, offset: 0, total: txs.length });
    const { ids: listed, totals } = await all('/extended/v1/tx', 50);
    expect(listed).toEqual(txs.map((t) => t.tx_id));
    expect(new Set(totals)).toEqual(new Set([txs.length]));
    const asc = await all('/extended/v1/tx?order=asc', 50);
    expect(asc.ids).toEqual(txs.map((t) => t.tx_id).reverse());
  });

  it('filters by type, one or several, with their counts as total', async () => {
    const types = [...new Set(txs.map((t) => t.type))];
    expect(types.length).toBeGreaterThan(1);
    for (const type of types) {
      const { ids: listed, totals } = await all(`/extended/v1/tx?type=${type}`, 50);
      const expected = txs.filter((t) => t.type === type).map((t) => t.tx_id);
      expectMessage(type, () => expect(listed).toEqual(expected));
      expect(totals[0]).toBe(expected.length);
    }
    const two = types.slice(0, 2);
    const both = await all(`/extended/v1/tx?type=${two.join(',')}`, 50);
    expect(both.ids).toEqual(txs.filter((t) => two.includes(t.type)).map((t) => t.tx_id));
    const repeated = await api.get(`/extended/v1/tx?limit=50&type=${two[0]}&type=${two[1]}`);
    expect(ids(repeated.body)).toEqual(both.ids.slice(0, 50));
  });

  it('answers a page at any offset, inside a block or across blocks, in both orders, of all types or one', async () => {
    const type = txs[Math.floor(txs.length / 2)]!.type;
    for (const [query, want] of [
      ['', txs.map((t) => t.tx_id)],
      [`&type=${type}`, txs.filter((t) => t.type === type).map((t) => t.tx_id)],
    ] as const) {
      const offsets = [...sample([...want.keys()], 12), want.length - 1, want.length, want.length + 7];
      for (const offset of offsets) {
        for (const [order, list] of [
          ['desc', want],
          ['asc', [...want].reverse()],
        ] as const) {
          const path = `/extended/v1/tx?limit=3&offset=${offset}&order=${order}${query}`;
          const res = await api.get(path);
          expectMessage(path, () =>
            expect({ total: res.body.total, ids: ids(res.body) }).toEqual({
              total: want.length,
              ids: list.slice(offset, offset + 3),
            }),
          );
        }
      }
    }
  });

  it('sorts by fee and by burn block time, and filters by sender, nonce and time', async () => {
    const byFee = [...txs].sort(
      (x, y) =>
        (x.fee < y.fee ? -1 : x.fee > y.fee ? 1 : 0) ||
        x.block.block_height - y.block.block_height ||
        x.seq - y.seq ||
        x.tx_index - y.tx_index,
    );
    expect((await all('/extended/v1/tx?sort_by=fee&order=asc', 50)).ids).toEqual(byFee.map((t) => t.tx_id));
    const byTime = [...txs].sort(
      (x, y) =>
        y.block.burn_block_time - x.block.burn_block_time ||
        y.block.block_height - x.block.block_height ||
        y.seq - x.seq ||
        y.tx_index - x.tx_index,
    );
    expect((await all('/extended/v1/tx?sort_by=burn_block_time', 50)).ids).toEqual(byTime.map((t) => t.tx_id));
    const sender = txs.find((t) => t.type !== 'coinbase')?.sender ?? txs[0]!.sender;
    const fromSender = await all(`/extended/v1/tx?from_address=${sender}`, 50);
    expect(fromSender.ids).toEqual(txs.filter((t) => t.sender === sender).map((t) => t.tx_id));
    expect(fromSender.totals[0]).toBe(fromSender.ids.length);
    const withNonce = txs.find((t) => t.nonce > 0n)!;
    const nonce = await all(`/extended/v1/tx?nonce=${withNonce.nonce}`, 50);
    expect(nonce.ids).toEqual(txs.filter((t) => t.nonce === withNonce.nonce).map((t) => t.tx_id));
    const mid = txs[Math.floor(txs.length / 2)]!.block.burn_block_time;
    const since = await all(`/extended/v1/tx?start_time=${mid}`, 50);
    expect(since.ids).toEqual(txs.filter((t) => t.block.burn_block_time >= mid).map((t) => t.tx_id));
    const until = await all(`/extended/v1/tx?end_time=${mid}`, 50);
    expect(until.ids).toEqual(txs.filter((t) => t.block.burn_block_time <= mid).map((t) => t.tx_id));
  });

  it("lists a block's transactions by hash and by height in the v1 block order, with their number as total", async () => {
    for (const b of sample(oracle.canonical, 12)) {
      const byHeight = await all(`/extended/v1/tx/block_height/${b.block_height}`, 50);
      expectMessage(`height ${b.block_height}`, () => expect(byHeight.ids).toEqual(v1TxOrder(b)));
      expect(byHeight.totals[0]).toBe(b.txs.length);
      const byHash = await api.get(`/extended/v1/tx/block/${b.block_hash}?limit=200`);
      expect(byHash.headers.get('warning')).toBe(WARNING);
      expect(ids(byHash.body)).toEqual(v1TxOrder(b));
    }
    expect(blockTxOrder(oracle.canonical[0]!)).toHaveLength(oracle.canonical[0]!.txs.length);
    expect((await api.get(`/extended/v1/tx/block_height/${oracle.tip.block_height + 1}`)).status).toBe(404);
    expect((await api.get(`/extended/v1/tx/block/0x${'ab'.repeat(32)}`)).status).toBe(404);
  });

  it('writes every page of mined transactions byte for byte as JSON.stringify writes the page of kept texts: first, middle, last and empty pages, v1 and v2 block pages, an address history, exclude_function_args (ADR 0043)', async () => {
    const { rows } = (await api.db.raw(
      'SELECT t.tx_id, j.json FROM txs t JOIN tx_list_json j USING (tx_id, index_block_hash) WHERE t.canonical',
    )) as { rows: Array<{ tx_id: string; json: string }> };
    const kept = new Map(rows.map((r) => [r.tx_id, r.json]));
    expect(kept.size).toBe(txs.length);
    type Listed = { tx_id: string; contract_call?: Record<string, unknown> };
    /** The answer as the reference's shape written by JSON.stringify, from each listed transaction's kept text. */
    const expected = (limit: number, offset: number, total: number, listed: readonly string[], exclude = false) =>
      JSON.stringify({
        limit,
        offset,
        total,
        results: listed.map((id) => {
          const tx = JSON.parse(kept.get(id)!) as Listed;
          if (!exclude || !tx.contract_call) return tx;
          const { function_args: _args, ...call } = tx.contract_call;
          return { ...tx, contract_call: call };
        }),
      });
    const expectPage = async (
      path: string,
      limit: number,
      offset: number,
      total: number,
      listed: readonly string[],
      exclude = false,
    ) => {
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(200));
      expectMessage(path, () => expect(res.text).toBe(expected(limit, offset, total, listed, exclude)));
    };
    const all = txs.map((t) => t.tx_id);
    const n = all.length;
    for (const [limit, offset] of [
      [20, 0],
      [7, 5],
      [7, n - 3],
      [7, n],
      [7, n + 40],
    ] as const) {
      await expectPage(`/extended/v1/tx?limit=${limit}&offset=${offset}`, limit, offset, n, all.slice(offset, offset + limit));
      const asc = [...all].reverse();
      await expectPage(
        `/extended/v1/tx?limit=${limit}&offset=${offset}&order=asc`,
        limit,
        offset,
        n,
        asc.slice(offset, offset + limit),
      );
    }
    await expectPage('/extended/v1/tx', 20, 0, n, all.slice(0, 20));
    const type = txs[Math.floor(n / 2)]!.type;
    const ofType = txs.filter((t) => t.type === type).map((t) => t.tx_id);
    await expectPage(`/extended/v1/tx?type=${type}&limit=5&offset=2`, 5, 2, ofType.length, ofType.slice(2, 7));
    // A shape whose total is counted and whose page is not positioned (another statement text).
    const sender = txs.find((t) => t.type !== 'coinbase')?.sender ?? txs[0]!.sender;
    const fromSender = txs.filter((t) => t.sender === sender).map((t) => t.tx_id);
    await expectPage(`/extended/v1/tx?from_address=${sender}&limit=4&offset=1`, 4, 1, fromSender.length, fromSender.slice(1, 5));
    await expectPage(
      `/extended/v1/tx?from_address=${sender}&offset=${fromSender.length}`,
      20,
      fromSender.length,
      fromSender.length,
      [],
    );
    // exclude_function_args: every contract call of the chain, a page of them.
    const calls = txs.filter((t) => t.type === 'contract_call').map((t) => t.tx_id);
    if (calls.length > 0) {
      await expectPage(
        `/extended/v1/tx?type=contract_call&limit=50&exclude_function_args=true`,
        50,
        0,
        calls.length,
        calls.slice(0, 50),
        true,
      );
    }
    await expectPage(`/extended/v1/tx?limit=9&exclude_function_args=true`, 9, 0, n, all.slice(0, 9), true);
    for (const b of sample(oracle.canonical, 6)) {
      const v1 = v1TxOrder(b);
      const v2 = blockTxOrder(b);
      await expectPage(`/extended/v1/tx/block_height/${b.block_height}?limit=50`, 50, 0, v1.length, v1);
      await expectPage(`/extended/v1/tx/block/${b.block_hash}?limit=2&offset=1`, 2, 1, v1.length, v1.slice(1, 3));
      await expectPage(`/extended/v2/blocks/${b.block_height}/transactions?limit=50`, 50, 0, v2.length, v2);
      await expectPage(
        `/extended/v2/blocks/${b.index_block_hash}/transactions?limit=2&offset=1`,
        2,
        1,
        v2.length,
        v2.slice(1, 3),
      );
      await expectPage(`/extended/v2/blocks/${b.block_height}/transactions?offset=${v2.length}`, 20, v2.length, v2.length, []);
    }
    // An address history: its own order is address-transactions.test.ts's; here, the page's bytes around its ids.
    const history = await api.get(`/extended/v1/address/${sender}/transactions?limit=50`);
    const listed = (history.body as { results: Listed[] }).results.map((t) => t.tx_id);
    expect(listed.length).toBeGreaterThan(0);
    const total = (history.body as { total: number }).total;
    expect(history.text).toBe(expected(50, 0, total, listed));
    await expectPage(
      `/extended/v1/address/${sender}/transactions?limit=50&exclude_function_args=true`,
      50,
      0,
      total,
      listed,
      true,
    );
    await expectPage(`/extended/v1/address/${sender}/transactions?offset=${total}`, 20, total, total, []);
  });

  it('answers 500, not a short page, when a listed transaction has no kept text (an indexer/api mismatch)', async () => {
    const b = oracle.canonical[oracle.canonical.length - 1]!;
    const victim = v1TxOrder(b)[0]!;
    const { rows } = (await api.db.raw(
      'DELETE FROM tx_list_json j USING txs t WHERE t.tx_id = j.tx_id AND t.index_block_hash = j.index_block_hash AND t.canonical AND j.tx_id = ? RETURNING j.*',
      [victim],
    )) as { rows: Array<{ tx_id: string; index_block_hash: string; json: string }> };
    expect(rows).toHaveLength(1);
    try {
      const sender = txs.find((t) => t.tx_id === victim)!.sender;
      for (const path of [
        `/extended/v1/tx/block_height/${b.block_height}`,
        `/extended/v2/blocks/${b.block_height}/transactions`,
        `/extended/v1/tx?limit=50&offset=${Math.max(0, txs.findIndex((t) => t.tx_id === victim) - 3)}`,
        `/extended/v1/address/${sender}/transactions?limit=50`,
      ]) {
        const res = await api.get(path);
        expectMessage(path, () => expect(res.status).toBe(500));
      }
    } finally {
      await api.db('tx_list_json').insert(rows);
    }
    expect((await api.get(`/extended/v1/tx/block_height/${b.block_height}`)).status).toBe(200);
  });

  it('gives the raw bytes of mined transactions, and redirects an id without 0x', async () => {
    for (const t of txs.slice(0, 15)) {
      const res = await api.get(`/extended/v1/tx/${t.tx_id}/raw`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ raw_tx: t.raw });
      expect(res.headers.get('warning')).toBe(WARNING);
    }
    const bare = await request(api.server)
      .get(`/extended/v1/tx/${txs[0]!.tx_id.slice(2)}/raw`)
      .redirects(0);
    expect(bare.status).toBe(302);
    expect(bare.headers['location']).toBe(`/extended/v1/tx/${txs[0]!.tx_id}/raw`);
    expect((await api.get(`/extended/v1/tx/0x${'cd'.repeat(32)}/raw`)).status).toBe(404);
  });

  it('looks up several transactions at once, naming those it does not know', async () => {
    const some = txs.slice(0, 3);
    const unknown = `0x${'ef'.repeat(32)}`;
    const res = await api.get(`/extended/v1/tx/multiple?tx_id=${some.map((t) => t.tx_id).join(',')}&tx_id=${unknown}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...some.map((t) => t.tx_id), unknown].sort());
    for (const t of some) {
      expect(res.body[t.tx_id]).toMatchObject({
        found: true,
        result: { tx_id: t.tx_id, tx_type: t.type, block_height: t.block.block_height },
      });
    }
    expect(res.body[unknown]).toEqual({ found: false, result: { tx_id: unknown } });
    const none = await api.get('/extended/v1/tx/multiple');
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('tx_id');
  });

  it('pages the events of a transaction and of a principal, newest first, by type', async () => {
    const withEvents = await api.get(
      `/extended/v1/tx/${txs.find((t) => t.type !== 'coinbase')?.tx_id ?? txs[0]!.tx_id}?event_limit=100`,
    );
    const txId = withEvents.body.tx_id as string;
    const expected = [...(withEvents.body.events as Array<{ event_index: number; event_type: string }>)].reverse();
    const res = await api.get(`/extended/v1/tx/events?tx_id=${txId}&limit=100`);
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toBe(WARNING);
    expect(res.body.events).toEqual(expected);
    const kinds = [...new Set(expected.map((e) => e.event_type))];
    for (const kind of kinds) {
      const one = await api.get(`/extended/v1/tx/events?tx_id=${txId}&type=${kind}&limit=100`);
      expect(one.body.events).toEqual(expected.filter((e) => e.event_type === kind));
    }
    // A principal: the sender of a token transfer sees its STX transfer events.
    const transfer = txs.find(
      (t) => t.type === 'token_transfer' && t.block.txs.some((x) => x.status === 'success' && x.tx_id === t.tx_id),
    );
    if (transfer) {
      const mine = await api.get(`/extended/v1/tx/events?address=${transfer.sender}&type=stx_asset&limit=100`);
      expect(mine.status).toBe(200);
      const events = mine.body.events as Array<{ tx_id: string; asset: { sender: string; recipient: string } }>;
      expect(events.some((e) => e.tx_id === transfer.tx_id)).toBe(true);
      for (const e of events) expect([e.asset.sender, e.asset.recipient]).toContain(transfer.sender);
    }
    for (const q of ['', `tx_id=${txId}&address=${txs[0]!.sender}`, 'type=bogus&tx_id=' + txId]) {
      const bad = await api.get(`/extended/v1/tx/events?${q}`);
      expectMessage(q, () => expect(bad.status).toBe(400));
    }
  });

  it("keeps each event's answer text (event_json) as the api renders the transaction's events per request, and migration 101 fills the same", async () => {
    const kept = (await api.db.raw(
      `SELECT e.tx_id, e.event_index, j.json FROM events e
       LEFT JOIN event_json j ON j.index_block_hash = e.index_block_hash AND j.event_index = e.event_index
       WHERE e.canonical AND e.type = ANY(?::text[])`,
      [Object.keys(EVENT_GROUPS)],
    )) as { rows: Array<{ tx_id: string; event_index: number; json: string | null }> };
    const keptByKey = new Map(kept.rows.map((r) => [`${r.tx_id}:${r.event_index}`, r.json]));
    // Every canonical event of the principals' kinds, as the transaction's event page renders it from its row.
    const rendered = new Map<string, string>();
    for (const txId of new Set(kept.rows.map((r) => r.tx_id))) {
      for (let offset = 0; ; offset += 100) {
        const res = await api.get(`/extended/v1/tx/events?tx_id=${txId}&limit=100&offset=${offset}`);
        expect(res.status).toBe(200);
        for (const e of res.body.events as Array<{ tx_id: string; event_index: number }>) {
          rendered.set(`${e.tx_id}:${e.event_index}`, JSON.stringify(e));
        }
        if (res.body.events.length < 100) break;
      }
    }
    expect(rendered.size).toBe(keptByKey.size);
    for (const [key, text] of rendered) expectMessage(key, () => expect(keptByKey.get(key)).toBe(text));
    // The migration's backfill renders the rows already indexed the same way (every row, canonical or not).
    const before = (await api.db.raw('SELECT index_block_hash, event_index, json FROM event_json ORDER BY 1, 2')) as {
      rows: unknown[];
    };
    const [, m101] = MIGRATIONS.find(([name]) => name === '101-event-json')!;
    await m101.down(api.db);
    await m101.up(api.db);
    const after = (await api.db.raw('SELECT index_block_hash, event_index, json FROM event_json ORDER BY 1, 2')) as {
      rows: unknown[];
    };
    expect(after.rows).toEqual(before.rows);
  });

  it("pages a principal's events at any offset as the raw recording lists them, of every type, of one and of several", async () => {
    const byPrincipal = principalEvents(fixture, oracle);
    const ranked = [...byPrincipal].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
    // The busiest principals, a contract with logs and a principal with STX locks, when the recording has them.
    const picked = new Map(ranked.slice(0, 3));
    for (const group of ['smart_contract_log', 'stx_lock']) {
      const found = ranked.find(([, list]) => list.some((e) => e.group === group));
      if (found) picked.set(found[0], found[1]);
    }
    expect(picked.size).toBeGreaterThan(0);
    // Each event of a principal's page is, byte for byte, what the transaction's event page renders for it.
    const perTx = new Map<string, string>();
    const expectBodiesAsPerTx = async (events: Array<{ tx_id: string; event_index: number }>) => {
      for (const e of events) {
        if (!perTx.has(e.tx_id)) {
          for (let offset = 0; ; offset += 100) {
            const res = await api.get(`/extended/v1/tx/events?tx_id=${e.tx_id}&limit=100&offset=${offset}`);
            for (const x of res.body.events as Array<{ event_index: number }>) {
              perTx.set(`${e.tx_id}:${x.event_index}`, JSON.stringify(x));
            }
            perTx.set(e.tx_id, '');
            if (res.body.events.length < 100) break;
          }
        }
        expect(JSON.stringify(e)).toBe(perTx.get(`${e.tx_id}:${e.event_index}`));
      }
    };
    const pages = async (query: string, n: number) => {
      const limit = Math.max(3, Math.ceil(n / 6));
      const keys: string[] = [];
      for (let offset = 0; offset <= n; offset += limit) {
        const res = await api.get(`/extended/v1/tx/events?${query}&limit=${limit}&offset=${offset}`);
        expectMessage(query, () => expect(res.status).toBe(200));
        expect(res.body.events.length).toBe(Math.min(limit, Math.max(0, n - offset)));
        keys.push(
          ...(res.body.events as Array<{ tx_id: string; event_index: number }>).map((e) => `${e.tx_id}:${e.event_index}`),
        );
        await expectBodiesAsPerTx(res.body.events as Array<{ tx_id: string; event_index: number }>);
      }
      return keys;
    };
    // The read model behind it (migration 088) holds every principal's events, numbered as its definition numbers them.
    const numbered = (await api.db.raw(
      `SELECT count(*)::int AS n FROM principal_events s
       FULL JOIN (SELECT r.*, row_number() OVER (PARTITION BY r.principal ORDER BY r.block_height, r.event_index) AS seq,
                         row_number() OVER (PARTITION BY r.principal, r.type_group ORDER BY r.block_height, r.event_index) AS group_seq
                  FROM (${principalEventRowsSql('true')}) r) d
         ON d.principal = s.principal AND d.block_height = s.block_height AND d.event_index = s.event_index
            AND d.index_block_hash = s.index_block_hash AND d.type_group = s.type_group AND d.seq = s.seq AND d.group_seq = s.group_seq
       WHERE s.principal IS NULL OR d.principal IS NULL`,
    )) as { rows: Array<{ n: number }> };
    expect(numbered.rows[0]!.n).toBe(0);
    expect(Number((await api.db('principal_events').count({ n: '*' }).first())!.n)).toBe(
      [...byPrincipal.values()].reduce((n, list) => n + list.length, 0),
    );
    for (const [principal, list] of picked) {
      expectMessage(principal, async () =>
        expect(await pages(`address=${principal}`, list.length)).toEqual(list.map((e) => e.key)),
      );
      const groups = [...new Set(list.map((e) => e.group))];
      const one = list.filter((e) => e.group === groups[0]);
      expect(await pages(`address=${principal}&type=${groups[0]}`, one.length)).toEqual(one.map((e) => e.key));
      // Two groups, one of them absent from the principal's events when it has only one.
      const other = groups[1] ?? (groups[0] === 'stx_lock' ? 'stx_asset' : 'stx_lock');
      const two = list.filter((e) => e.group === groups[0] || e.group === other);
      expect(await pages(`address=${principal}&type=${groups[0]},${other}`, two.length)).toEqual(two.map((e) => e.key));
    }
  });

  it('gives the mempool statistics of the pending transactions', async () => {
    // The pending set as the indexer should leave it: announced, not mined in a canonical block (no drops recorded).
    const mined = new Set(txs.map((t) => t.tx_id));
    let tipHeight = 0;
    const receiptHeight = new Map<string, number>();
    for (const ev of loadRecordedEvents(fixture)) {
      if (ev.path === '/new_block')
        tipHeight = Math.max(tipHeight, (JSON.parse(ev.body) as { block_height: number }).block_height);
      if (ev.path === '/new_mempool_tx') {
        for (const raw of JSON.parse(ev.body) as string[]) {
          const d = decode(raw);
          if (!receiptHeight.has(d.tx_id)) receiptHeight.set(d.tx_id, tipHeight);
        }
      }
      expect(ev.path).not.toBe('/drop_mempool_tx');
    }
    const pending = [...oracle.mempoolRaw.values()].map(decode).filter((d) => !mined.has(d.tx_id));
    // The epoch 3 recording leaves announced transactions pending; mocknet announces none.
    expect(pending.length > 0).toBe(fixture === 'epoch-3-transition.tsv');
    const res = await api.get('/extended/v1/tx/mempool/stats');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    for (const type of ['token_transfer', 'smart_contract', 'contract_call', 'poison_microblock']) {
      const of = pending.filter((d) => d.type === type);
      expect(res.body.tx_type_counts[type]).toBe(of.length);
      const check = (got: Record<string, number | null>, values: number[]) => {
        for (const [k, p] of [
          ['p25', 0.25],
          ['p50', 0.5],
          ['p75', 0.75],
          ['p95', 0.95],
        ] as const) {
          const want = percentileCont(values, p);
          if (want === null) expect(got[k]).toBeNull();
          else expect(got[k]).toBeCloseTo(want, 6);
        }
      };
      check(
        res.body.tx_simple_fee_averages[type],
        of.map((d) => Number(d.fee)),
      );
      check(
        res.body.tx_byte_sizes[type],
        of.map((d) => d.bytes),
      );
      check(
        res.body.tx_ages[type],
        of.map((d) => oracle.tip.block_height - receiptHeight.get(d.tx_id)!),
      );
    }
  });

  it('gives the fee priorities of the pending transactions (/extended/v2/mempool/fees)', async () => {
    const mined = new Set(txs.map((t) => t.tx_id));
    const pending = [...oracle.mempoolRaw.values()].map(decode).filter((d) => !mined.has(d.tx_id));
    const res = await api.get('/extended/v2/mempool/fees');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const check = (got: Record<string, number>, fees: number[]) => {
      for (const [k, p] of [
        ['no_priority', 0.25],
        ['low_priority', 0.5],
        ['medium_priority', 0.75],
        ['high_priority', 0.95],
      ] as const) {
        const want = percentileCont(fees, p);
        // Rounded to an integer (a tie may go either way).
        if (want === null) expect(got[k]).toBe(0);
        else expect(Math.abs(got[k]! - want)).toBeLessThanOrEqual(0.5);
      }
    };
    check(
      res.body.all,
      pending.map((d) => Number(d.fee)),
    );
    for (const type of ['token_transfer', 'contract_call', 'smart_contract']) {
      const of = pending.filter((d) => d.type === type);
      if (of.length === 0) expect(res.body).not.toHaveProperty(type);
      else
        check(
          res.body[type],
          of.map((d) => Number(d.fee)),
        );
    }
  });

  it('answers malformed input with a 400 naming the parameter', async () => {
    for (const [path, name] of [
      ['/extended/v1/tx?type=bogus', 'type'],
      ['/extended/v1/tx?type=coinbase,', 'type'],
      ['/extended/v1/tx?from_address=SP000000000000000000002Q6VF78.pox', 'from_address'],
      ['/extended/v1/tx?to_address=nope', 'to_address'],
      ['/extended/v1/tx?sort_by=size', 'sort_by'],
      ['/extended/v1/tx?nonce=-1', 'nonce'],
      ['/extended/v1/tx?limit=51', 'limit'],
      ['/extended/v1/tx/multiple?tx_id=0x12', 'tx_id'],
      ['/extended/v1/tx/block/0x12', 'block_hash'],
      ['/extended/v1/tx/block_height/x', 'height'],
      ['/extended/v1/tx/zz/raw', 'tx_id'],
    ] as const) {
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(400));
      expect(res.body.message).toContain(name);
    }
  });
});
