import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage, testInfra } from '@bda/test-support';
import type { DbMempoolTx } from '@bda/db';
import { hash32, MempoolTxRowBuilder, testAddress } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertMempoolTxs } from './support/seed';
import { getTxById } from '../src/chain/datastore/txs';
import { toMempoolTransactionResponse, withoutFunctionArgs } from '../src/chain/mappers/tx';
import { getTransactionV3 } from '../src/accounts/datastore/v3-transactions';
import { toMempoolTransactionSummaryResponse } from '../src/accounts/mappers/v3-transactions';

let api: ApiHarness;

/** `rows` in the mempool for the tests of the enclosing describe: inserted before them, removed after. */
function withMempoolRows(rows: DbMempoolTx[]): void {
  beforeAll(async () => {
    await insertMempoolTxs(api.db, rows);
  });
  afterAll(async () => {
    await api
      .db('mempool_txs')
      .whereIn(
        'tx_id',
        rows.map((t) => t.tx_id),
      )
      .delete();
  });
}
const carol = testAddress('carol');
const dave = testAddress('dave');
let pending: DbMempoolTx[];

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
  pending = [];
  // 25 pending: 0..19 from carol, 20..24 from dave; receipt times one minute apart, newest last.
  for (let i = 0; i < 25; i++) {
    const minute = String(i).padStart(2, '0');
    pending.push(
      new MempoolTxRowBuilder(`p${i}`)
        .sender(i < 20 ? carol : dave)
        .receivedAt(`2024-05-01T12:${minute}:00.000Z`)
        .build(),
    );
  }
  // Two received in the same second: ordered by tx id.
  const tieA = new MempoolTxRowBuilder('tie-a').receivedAt('2024-05-01T13:00:00.000Z').build();
  const tieB = new MempoolTxRowBuilder('tie-b').receivedAt('2024-05-01T13:00:00.000Z').build();
  pending.push(tieA, tieB);
  await insertMempoolTxs(api.db, [
    ...pending,
    new MempoolTxRowBuilder('mined').sender(carol).status('mined').receivedAt('2024-05-01T14:00:00.000Z').build(),
    new MempoolTxRowBuilder('dropped')
      .sender(carol)
      .status('dropped_too_expensive')
      .receivedAt('2024-05-01T14:00:00.000Z')
      .build(),
  ]);
});

afterAll(async () => {
  await api?.close();
});

const ids = (body: { results: Array<{ tx_id: string }> }) => body.results.map((t) => t.tx_id);

describe('GET /extended/v1/tx/mempool', () => {
  it('lists pending transactions newest first, ties by tx id, without mined or dropped ones', async () => {
    const res = await api.get('/extended/v1/tx/mempool');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, total: 27 });
    const [a, b] = [hash32('tx', 'tie-a'), hash32('tx', 'tie-b')].sort();
    const expected = [a, b, ...Array.from({ length: 18 }, (_, i) => hash32('tx', `p${24 - i}`))];
    expect(ids(res.body)).toEqual(expected);
    expect(ids(res.body)).not.toContain(hash32('tx', 'mined'));
    expect(ids(res.body)).not.toContain(hash32('tx', 'dropped'));
    expect(res.body.results.every((t: { tx_status: string }) => t.tx_status === 'pending')).toBe(true);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('pages with limit and offset', async () => {
    const res = await api.get('/extended/v1/tx/mempool?limit=5&offset=25');
    expect(res.body).toMatchObject({ limit: 5, offset: 25, total: 27 });
    expect(ids(res.body)).toEqual([hash32('tx', 'p1'), hash32('tx', 'p0')]);
    const past = await api.get('/extended/v1/tx/mempool?offset=100');
    expect(past.body).toEqual({ limit: 20, offset: 100, total: 27, results: [] });
    expect((await api.get('/extended/v1/tx/mempool?limit=50')).body.results).toHaveLength(27);
  });

  it('gives the default page for limit=0 and accepts unanchored, as the reference API does', async () => {
    const res = await api.get('/extended/v1/tx/mempool?limit=0&unanchored=true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, total: 27 });
    expect(res.body.results).toHaveLength(20);
  });

  it('filters by sender_address, with a matching total', async () => {
    const res = await api.get(`/extended/v1/tx/mempool?sender_address=${dave}`);
    expect(res.body.total).toBe(5);
    expect(ids(res.body)).toEqual([24, 23, 22, 21, 20].map((i) => hash32('tx', `p${i}`)));
    const none = await api.get(`/extended/v1/tx/mempool?sender_address=${testAddress('nobody')}`);
    expect(none.body).toMatchObject({ total: 0, results: [] });
  });

  describe('filters and orders as the reference API does', () => {
    const erin = testAddress('erin');
    const contract = `${testAddress('deployer')}.swap`;
    // Received after everything above, so they lead the default order; fees and sizes chosen to order differently.
    const extra = [
      new MempoolTxRowBuilder('to-erin')
        .sender(carol)
        .receivedAt('2024-05-01T15:00:00.000Z')
        .with({ payload: { recipient_address: erin, amount: '1', memo: '0x' }, fee_rate: '900', raw_tx: Buffer.alloc(40) })
        .build(),
      new MempoolTxRowBuilder('from-erin')
        .sender(erin)
        .receivedAt('2024-05-01T15:01:00.000Z')
        .with({ fee_rate: '5', raw_tx: Buffer.alloc(400) })
        .build(),
      new MempoolTxRowBuilder('calls-swap')
        .sender(dave)
        .receivedAt('2024-05-01T15:02:00.000Z')
        .with({
          type_id: 'contract_call',
          contract_id: contract,
          payload: { contract_id: contract },
          fee_rate: '7000',
          raw_tx: Buffer.alloc(90),
        })
        .build(),
      new MempoolTxRowBuilder('erin-dropped')
        .sender(erin)
        .status('dropped_replace_by_fee')
        .receivedAt('2024-05-01T15:03:00.000Z')
        .build(),
    ];
    withMempoolRows(extra);

    it('filters by recipient_address: token transfers to that principal', async () => {
      const res = await api.get(`/extended/v1/tx/mempool?recipient_address=${erin}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(1);
      expect(ids(res.body)).toEqual([hash32('tx', 'to-erin')]);
    });

    it('filters by address: sent, received, or the contract deployed or called, pending only', async () => {
      const res = await api.get(`/extended/v1/tx/mempool?address=${erin}`);
      expect(res.body.total).toBe(2);
      expect(ids(res.body)).toEqual([hash32('tx', 'from-erin'), hash32('tx', 'to-erin')]);
      const called = await api.get(`/extended/v1/tx/mempool?address=${contract}`);
      expect(ids(called.body)).toEqual([hash32('tx', 'calls-swap')]);
    });

    it('leaves function_args out of contract calls with exclude_function_args=true', async () => {
      const full = await api.get(`/extended/v1/tx/mempool?address=${contract}`);
      expect(full.body.results[0].contract_call).toHaveProperty('function_args');
      const lean = await api.get(`/extended/v1/tx/mempool?address=${contract}&exclude_function_args=true`);
      expect(lean.body.results[0].contract_call).toMatchObject({ contract_id: contract });
      expect(lean.body.results[0].contract_call).not.toHaveProperty('function_args');
    });

    it('combines sender_address and recipient_address: both must match', async () => {
      expect(ids((await api.get(`/extended/v1/tx/mempool?sender_address=${carol}&recipient_address=${erin}`)).body)).toEqual([
        hash32('tx', 'to-erin'),
      ]);
      expect((await api.get(`/extended/v1/tx/mempool?sender_address=${dave}&recipient_address=${erin}`)).body.total).toBe(0);
    });

    it('orders by fee or size, either way, and by age oldest first', async () => {
      const byFee = await api.get('/extended/v1/tx/mempool?order_by=fee&limit=2');
      expect(ids(byFee.body)).toEqual([hash32('tx', 'calls-swap'), hash32('tx', 'to-erin')]);
      const cheapest = await api.get('/extended/v1/tx/mempool?order_by=fee&order=asc&limit=1');
      expect(ids(cheapest.body)).toEqual([hash32('tx', 'from-erin')]);
      const bySize = await api.get('/extended/v1/tx/mempool?order_by=size&limit=3');
      expect(ids(bySize.body)).toEqual([hash32('tx', 'from-erin'), hash32('tx', 'calls-swap'), hash32('tx', 'to-erin')]);
      const oldest = await api.get('/extended/v1/tx/mempool?order=asc&limit=2');
      expect(ids(oldest.body)).toEqual([hash32('tx', 'p0'), hash32('tx', 'p1')]);
      expect(oldest.body.total).toBe(30);
    });

    it('pages through an order without repeating or skipping a transaction', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < 30; offset += 7) {
        seen.push(...ids((await api.get(`/extended/v1/tx/mempool?order_by=fee&order=asc&limit=7&offset=${offset}`)).body));
      }
      expect(new Set(seen).size).toBe(30);
    });

    it('gives every order’s pages, the first (read straight from the index) and the later ones (walked by key), as the rows sort', async () => {
      const rows = [...pending, ...extra.filter((t) => t.status === 'pending')];
      const keyOf = {
        age: (t: DbMempoolTx) => Date.parse(t.receipt_time),
        fee: (t: DbMempoolTx) => Number(BigInt(t.fee_rate)),
        size: (t: DbMempoolTx) => t.raw_tx.length,
      };
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      for (const orderBy of ['age', 'fee', 'size'] as const) {
        for (const order of ['desc', 'asc'] as const) {
          const sign = order === 'desc' ? -1 : 1;
          // Ties by tx id: ascending under the newest-first age order, else in the order's direction.
          const tie = orderBy === 'age' ? -sign : sign;
          for (const [filter, matching] of [
            ['', rows],
            [`&sender_address=${carol}`, rows.filter((t) => t.sender_address === carol)],
            // Sender, recipient or contract: in the age order the union of three index ranges (ADR 0041).
            ...[erin, carol, contract].map(
              (p) =>
                [
                  `&address=${p}`,
                  rows.filter((t) => t.sender_address === p || t.payload['recipient_address'] === p || t.contract_id === p),
                ] as const,
            ),
          ] as const) {
            const expected = [...matching]
              .sort((a, b) => sign * (keyOf[orderBy](a) - keyOf[orderBy](b)) || tie * cmp(a.tx_id, b.tx_id))
              .map((t) => t.tx_id);
            const seen: string[] = [];
            for (let offset = 0; offset < expected.length; offset += 8) {
              const res = await api.get(
                `/extended/v1/tx/mempool?order_by=${orderBy}&order=${order}&limit=8&offset=${offset}${filter}`,
              );
              expect(res.body.total).toBe(expected.length);
              seen.push(...ids(res.body));
            }
            expectMessage(`${orderBy} ${order}${filter}`, () => expect(seen).toEqual(expected));
          }
        }
      }
    });

    it('answers each page byte for byte as JSON.stringify of the transactions rendered by id (the kept texts, ADR 0041)', async () => {
      const paths = [
        '/extended/v1/tx/mempool',
        '/extended/v1/tx/mempool?limit=7&offset=3&order_by=fee&order=asc',
        `/extended/v1/tx/mempool?address=${erin}`,
        `/extended/v1/tx/mempool?address=${contract}&exclude_function_args=true`,
        `/extended/v1/tx/mempool?sender_address=${carol}&limit=5&offset=18`,
        `/extended/v1/address/${carol}/mempool?limit=4&offset=2`,
        '/extended/v1/tx/mempool?offset=500',
      ];
      for (const path of paths) {
        const res = await api.get(path);
        expectMessage(path, () => expect(res.status).toBe(200));
        const exclude = path.includes('exclude_function_args=true');
        const results: object[] = [];
        for (const id of ids(res.body)) {
          const found = await getTxById(api.db, id, { limit: 0, offset: 0 });
          if (found?.kind !== 'mempool') throw new Error(`${id}: not pending by id`);
          results.push(withoutFunctionArgs(toMempoolTransactionResponse(found.mempoolTx, found.abis), exclude));
        }
        const { limit, offset, total } = res.body as { limit: number; offset: number; total: number };
        expectMessage(path, () => expect(res.text).toBe(JSON.stringify({ limit, offset, total, results })));
      }
    });

    it.each([
      [`address=${testAddress('x')}&sender_address=${carol}`, 'address'],
      [`address=${testAddress('x')}&recipient_address=${carol}`, 'address'],
      ['recipient_address=nope', 'recipient_address'],
      ['address=SP123', 'address'],
      ['order_by=price', 'order_by'],
      ['order_by=FEE', 'order_by'],
      ['order=up', 'order'],
      ['order=asc&order=desc', 'order'],
    ])('responds with 400 naming the parameter for %s', async (query, name) => {
      const res = await api.get(`/extended/v1/tx/mempool?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(name);
    });
  });

  it('pages the whole pending set in the v3 order by cursor, newest second first, then tx id descending (index of migration 106)', async () => {
    const secs = (t: DbMempoolTx) => Math.floor(Date.parse(t.receipt_time) / 1000);
    const expected = [...pending]
      .sort((a, b) => secs(b) - secs(a) || (a.tx_id < b.tx_id ? 1 : a.tx_id > b.tx_id ? -1 : 0))
      .map((t) => t.tx_id);
    const cursorOf = (id: string) => `${secs(pending.find((t) => t.tx_id === id)!)}:${id}`;
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const path: string = `/extended/v3/mempool/transactions?limit=4${next === null ? '' : `&cursor=${encodeURIComponent(next)}`}`;
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(200));
      const body = res.body as {
        total: number;
        cursor: { next: string | null; previous: string | null; current: string | null };
        results: Array<{ tx_id: string }>;
      };
      const at = seen.length;
      const page = body.results.map((t) => t.tx_id);
      expectMessage(path, () =>
        expect({ total: body.total, page, cursor: body.cursor }).toEqual({
          total: expected.length,
          page: expected.slice(at, at + 4),
          cursor: {
            current: cursorOf(expected[at]!),
            next: at + 4 < expected.length ? cursorOf(expected[at + 4]!) : null,
            previous: at > 0 ? cursorOf(expected[Math.max(0, at - 4)]!) : null,
          },
        }),
      );
      seen.push(...page);
      next = body.cursor.next;
    } while (next !== null);
    expect(seen).toEqual(expected);
  });

  it.each([
    ['limit=51', 'limit'],
    ['limit=-1', 'limit'],
    ['unanchored=1', 'unanchored'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['limit=1&limit=1', 'limit'],
    ['sender_address=nope', 'sender_address'],
    [`sender_address=${dave.toLowerCase()}`, 'sender_address'],
    [`sender_address=${dave}&sender_address=${dave}`, 'sender_address'],
  ])('responds with 400 naming the parameter for %s', async (query, name) => {
    const res = await api.get(`/extended/v1/tx/mempool?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(name);
  });
});

/**
 * The v3 mempool pages from the kept v3 texts (`mempool_tx_json.v3_json`, migration 110, ADR 0045): each page, the
 * whole mempool's and a principal's (the union of three index ranges), byte for byte the page built in the test from
 * its own order of the pending rows and the v3 mapper's rendering of each row read by id
 * (`/extended/v3/transactions/{tx_id}`'s statement).
 */
describe('GET /extended/v3/mempool/transactions and /extended/v3/principals/{p}/mempool/transactions', () => {
  const frank = testAddress('frank');
  const pool = `${testAddress('deployer2')}.pool`;
  const transfer = (recipient: string) => ({ recipient_address: recipient, amount: '7', memo: '0x' });
  const call = { type_id: 'contract_call', contract_id: pool, payload: { contract_id: pool, function_name: 'swap' } };
  // Several in one second, received in an order other than their ids' (the v3 order's ties are by tx id, not time).
  const extra = [
    new MempoolTxRowBuilder('f-send-1').sender(frank).receivedAt('2024-06-01T10:00:00.100Z').build(),
    new MempoolTxRowBuilder('f-send-2').sender(frank).receivedAt('2024-06-01T10:00:00.900Z').build(),
    new MempoolTxRowBuilder('f-recv-1')
      .sender(dave)
      .receivedAt('2024-06-01T10:00:00.500Z')
      .with({ payload: transfer(frank) })
      .build(),
    new MempoolTxRowBuilder('f-recv-3')
      .sender(carol)
      .receivedAt('2024-06-01T10:00:00.700Z')
      .with({ payload: transfer(frank) })
      .build(),
    // A self-transfer: in two of the principal's ranges, one row of its page.
    new MempoolTxRowBuilder('f-self')
      .sender(frank)
      .receivedAt('2024-06-01T10:00:01.000Z')
      .with({ payload: transfer(frank) })
      .build(),
    new MempoolTxRowBuilder('f-recv-2')
      .sender(carol)
      .receivedAt('2024-06-01T10:00:02.000Z')
      .with({ payload: transfer(frank) })
      .build(),
    new MempoolTxRowBuilder('f-call-1').sender(dave).receivedAt('2024-06-01T10:00:01.300Z').with(call).build(),
    new MempoolTxRowBuilder('f-call-2').sender(frank).receivedAt('2024-06-01T10:00:03.000Z').with(call).build(),
    new MempoolTxRowBuilder('f-dropped')
      .sender(frank)
      .status('dropped_replace_by_fee')
      .receivedAt('2024-06-01T10:00:05.000Z')
      .build(),
    new MempoolTxRowBuilder('f-mined')
      .sender(carol)
      .status('mined')
      .receivedAt('2024-06-01T10:00:05.000Z')
      .with({ payload: transfer(frank) })
      .build(),
  ];
  withMempoolRows(extra);

  const secs = (t: DbMempoolTx) => Math.floor(Date.parse(t.receipt_time) / 1000);
  const keyOf = (t: DbMempoolTx) => `${secs(t)}:${t.tx_id}`;
  /** The pending rows `of` in the v3 order: newest second first, then tx id descending. */
  const v3Order = (of: (t: DbMempoolTx) => boolean) =>
    [...pending, ...extra]
      .filter((t) => t.status === 'pending' && of(t))
      .sort((a, b) => secs(b) - secs(a) || (a.tx_id < b.tx_id ? 1 : a.tx_id > b.tx_id ? -1 : 0));
  const partyOf = (p: string) => (t: DbMempoolTx) =>
    t.sender_address === p || t.payload['recipient_address'] === p || t.contract_id === p;

  /** The page of `rows` (in order) from `cursor` as the reference computes it, each row rendered by id. */
  async function expectedPage(rows: DbMempoolTx[], limit: number, cursor: [number, string] | null): Promise<string> {
    let at = cursor === null ? 0 : rows.findIndex((t) => secs(t) < cursor[0] || (secs(t) === cursor[0] && t.tx_id <= cursor[1]));
    if (at < 0) at = rows.length;
    const page = rows.slice(at, at + limit);
    const results = [];
    for (const t of page) {
      const found = await getTransactionV3(api.db, t.tx_id);
      if (found?.kind !== 'mempool') throw new Error(`${t.tx_id}: not pending by id`);
      results.push(toMempoolTransactionSummaryResponse(found.tx));
    }
    const next = rows[at + limit];
    return JSON.stringify({
      total: rows.length,
      limit,
      cursor: {
        next: next ? keyOf(next) : null,
        previous: page.length > 0 && at > 0 ? keyOf(rows[Math.max(0, at - limit)]!) : null,
        current: page[0] ? keyOf(page[0]) : null,
      },
      results,
    });
  }

  /** Walks `base` by `cursor.next`, each page byte for byte the expected one; then pages from `mids`. */
  async function expectPages(base: string, rows: DbMempoolTx[], limit: number, mids: Array<[number, string]>) {
    let cursor: [number, string] | null = null;
    let pages = 0;
    for (;;) {
      const path: string = `${base}?limit=${limit}${cursor ? `&cursor=${cursor[0]}:${cursor[1]}` : ''}`;
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(200));
      expectMessage(path, () => expect(res.headers.get('content-type')).toMatch(/^application\/json/));
      const want = await expectedPage(rows, limit, cursor);
      expectMessage(path, () => expect(res.text).toBe(want));
      pages++;
      const next = (JSON.parse(want) as { cursor: { next: string | null } }).cursor.next;
      if (next === null) break;
      const [s, id] = next.split(':');
      cursor = [Number(s), id!];
    }
    expect(pages).toBe(Math.max(1, Math.ceil(rows.length / limit)));
    for (const mid of mids) {
      const path = `${base}?limit=${limit}&cursor=${mid[0]}:${mid[1]}`;
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(200));
      const want = await expectedPage(rows, limit, mid);
      expectMessage(path, () => expect(res.text).toBe(want));
    }
  }

  /** Cursors in the middle: a row's own key, a key of no row inside a second, and below every row (an empty page). */
  const midsOf = (rows: DbMempoolTx[]): Array<[number, string]> => {
    const mid = rows[Math.floor(rows.length / 2)]!;
    return [
      [secs(mid), mid.tx_id],
      [secs(rows[1]!), `0x${'7f'.repeat(32)}`],
      [1, `0x${'00'.repeat(32)}`],
    ];
  };

  it('answers the whole pending set’s pages byte for byte as the mapper renders them, by cursor and from the middle', async () => {
    const rows = v3Order(() => true);
    expect(rows).toHaveLength(27 + 8);
    await expectPages('/extended/v3/mempool/transactions', rows, 5, midsOf(rows));
    await expectPages('/extended/v3/mempool/transactions', rows, 50, []);
  });

  it('answers a principal’s pages (sent, received, contract called; a self-transfer once) byte for byte, total from the kept count', async () => {
    const mine = v3Order(partyOf(frank));
    expect(mine.map((t) => t.tx_id).sort()).toEqual(
      ['f-send-1', 'f-send-2', 'f-recv-1', 'f-recv-3', 'f-self', 'f-recv-2', 'f-call-2'].map((s) => hash32('tx', s)).sort(),
    );
    for (const limit of [1, 2, 3, 20]) {
      await expectPages(`/extended/v3/principals/${frank}/mempool/transactions`, mine, limit, midsOf(mine));
    }
    const called = v3Order(partyOf(pool));
    expect(called).toHaveLength(2);
    await expectPages(`/extended/v3/principals/${pool}/mempool/transactions`, called, 1, []);
    // Nothing pending: total 0, no cursor.
    await expectPages(`/extended/v3/principals/${testAddress('nobody')}/mempool/transactions`, [], 20, []);
    const none = await api.get(`/extended/v3/principals/${testAddress('nobody')}/mempool/transactions`);
    expect(none.text).toBe('{"total":0,"limit":20,"cursor":{"next":null,"previous":null,"current":null},"results":[]}');
  });

  it('answers 500, not a short page, when a listed transaction has no kept v3 text (an indexer/api mismatch)', async () => {
    const victim = hash32('tx', 'f-self');
    const [{ v3_json: kept }] = (await api.db('mempool_tx_json').where({ tx_id: victim }).select('v3_json')) as [
      { v3_json: string },
    ];
    await api.db('mempool_tx_json').where({ tx_id: victim }).update({ v3_json: null });
    try {
      for (const path of [
        '/extended/v3/mempool/transactions',
        `/extended/v3/principals/${frank}/mempool/transactions`,
        `/extended/v3/principals/${frank}/mempool/transactions?limit=1&cursor=${secs(extra[4]!)}:${victim}`,
      ]) {
        const res = await api.get(path);
        expectMessage(path, () => expect(res.status).toBe(500));
      }
    } finally {
      await api.db('mempool_tx_json').where({ tx_id: victim }).update({ v3_json: kept });
    }
    expect((await api.get(`/extended/v3/principals/${frank}/mempool/transactions`)).status).toBe(200);
  });
});
