import type { Server } from 'node:http';
import express from 'express';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeServer, createLogger, errorMiddleware, listen, notFoundHandler } from '@bda/common';
import { createDb, migrateLatest, RUNE_OPERATIONS, type RuneOperationName } from '@bda/db';
import { GENESIS_RUNE, parseSpacedRune, U128_MAX, U64_MAX } from '@bda/runes';
import { createTestDatabase, testInfra, expectMessage } from '@bda/test-support';
import { fetchRunes } from '@bda/api/testing';
import { createRunesDb, knexRunesDb, runesRouter, type RunesDb } from '../src/runes';
import { startApi } from './support/api-harness';
import { type SeedRow, seedLedger } from './runes-seed';

const H0 = `0x${'a0'.repeat(32)}`;
const H1 = `0x${'a1'.repeat(32)}`;
const H2 = `0x${'a2'.repeat(32)}`;
const ADDRESSES = [
  'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
  'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
  '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
  '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
  'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
];
const txId = (i: number) => `0x${i.toString(16).padStart(64, 'c')}`;

const FEHU = parseSpacedRune('Z•Z•Z•Z•Z•FEHU•Z•Z•Z•Z•Z');
const DOG = parseSpacedRune('DOG•GO•TO•THE•MOON');

/** 300 rows in block 840,000 with every operation, addresses and nulls; distinct vouts identify rows. */
function randomRows(count: number, seed: number): SeedRow[] {
  let s = seed;
  const rnd = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  const rows: SeedRow[] = [];
  let tx = 1;
  for (let i = 0; i < count; i++) {
    if (rnd(3) === 0) tx++;
    const operation = RUNE_OPERATIONS[rnd(5)]!;
    rows.push({
      txIndex: tx,
      txId: txId(tx),
      rune: rnd(3),
      operation,
      address: operation === 'etching' || operation === 'mint' ? null : rnd(6) === 0 ? null : ADDRESSES[rnd(5)]!,
      receiver: operation === 'send' ? ADDRESSES[rnd(5)]! : null,
      amount: operation === 'etching' ? null : BigInt(1 + rnd(100_000)),
      vout: i,
    });
  }
  return rows;
}

const BLOCK_ROWS = randomRows(300, 42);
const SMALL_ROWS = randomRows(10, 7).map((r) => ({
  ...r,
  txId: `0x${'d'.repeat(62)}${r.txIndex.toString(16).padStart(2, '0')}`,
}));

describe('/runes/v1', () => {
  let db: Knex;
  /** The api's own pool for rune reads (generic plans), as in production. */
  let runes: RunesDb;
  let server: Server;
  let base: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are schema-validated JSON that assertions read loosely
  const get = <T = any>(path: string) => fetchRunes<T>(base, path);

  beforeAll(async () => {
    const url = await createTestDatabase(testInfra().databaseUrl, 'runes_api');
    db = createDb({ connectionString: url, maxConnections: 4 });
    runes = createRunesDb({ connectionString: url, max: 4 });
    await migrateLatest(db);
    await seedLedger(
      db,
      [
        {
          number: 0,
          block: GENESIS_RUNE.block,
          tx: GENESIS_RUNE.tx,
          rune: GENESIS_RUNE.rune,
          spacers: GENESIS_RUNE.spacers,
          symbol: GENESIS_RUNE.symbol,
          terms: GENESIS_RUNE.terms,
          turbo: true,
          etchingTxId: null,
          etchingBlockHash: null,
          time: 0,
          mints: 3n,
        },
        {
          number: 1,
          block: 840_000,
          tx: 1,
          rune: FEHU.rune,
          spacers: FEHU.spacers,
          divisibility: 2,
          symbol: 'ᚠ',
          premine: 1_100_000n,
          terms: { amount: 1000n, cap: 3n, offsetStart: 0n, heightEnd: U64_MAX },
          mints: 1n,
          burned: 250n,
          etchingBlockHash: H0,
          time: 1_713_571_767,
        },
        {
          number: 2,
          block: 840_000,
          tx: 2,
          rune: DOG.rune,
          spacers: DOG.spacers,
          divisibility: 5,
          premine: 10n ** 15n,
          etchingBlockHash: H0,
        },
      ],
      [
        { height: 840_000, hash: H0, time: 1_713_571_767, rows: BLOCK_ROWS },
        { height: 840_001, hash: H1, time: 1_713_572_000, rows: [] },
        { height: 840_002, hash: H2, time: 1_713_573_000, rows: SMALL_ROWS },
      ],
      [
        { rune: 1, address: ADDRESSES[0]!, balance: 700_000n },
        { rune: 1, address: ADDRESSES[1]!, balance: 400_000n },
        { rune: 1, address: ADDRESSES[2]!, balance: 400_000n },
        { rune: 2, address: ADDRESSES[0]!, balance: 123_456_789n },
        { rune: 0, address: ADDRESSES[0]!, balance: 0n },
      ],
    );
    const app = express();
    app.set('query parser', 'simple');
    app.use(runesRouter({ db: runes, serverVersion: 'test' }));
    app.use(notFoundHandler());
    app.use(errorMiddleware(createLogger('runes-api-test', 'silent')));
    const listening = await listen(app, 0, '127.0.0.1');
    server = listening.server;
    base = `http://127.0.0.1:${listening.port}`;
  });
  afterAll(async () => {
    if (server) await closeServer(server);
    await runes?.close();
    await db?.destroy();
  });

  it('GET /runes/v1/ reports the indexed tip', async () => {
    const { status, body } = await get('/runes/v1/');
    expect(status).toBe(200);
    expect(body).toEqual({ server_version: 'test', status: 'ready', block_height: 840_002, block_hash: H2 });
  });

  describe('blocks/{block}/activity', () => {
    it('serves the rows in chain order with the seed record shape', async () => {
      const { status, body } = await get('/runes/v1/blocks/840000/activity?limit=3');
      expect(status).toBe(200);
      expect(body.limit).toBe(3);
      expect(body.offset).toBe(0);
      expect(body.total).toBe(300);
      const row = BLOCK_ROWS[0]!;
      const divisibility = [0, 2, 5][row.rune]!;
      const amount =
        row.amount === null || row.amount === undefined
          ? null
          : divisibility === 0
            ? row.amount.toString()
            : (Number(row.amount) / 10 ** divisibility).toFixed(divisibility);
      expect(body.results[0]).toEqual({
        rune: [
          { id: '1:0', number: 0, name: 'UNCOMMONGOODS', spaced_name: 'UNCOMMON•GOODS' },
          { id: '840000:1', number: 1, name: 'ZZZZZFEHUZZZZZ', spaced_name: 'Z•Z•Z•Z•Z•FEHU•Z•Z•Z•Z•Z' },
          { id: '840000:2', number: 2, name: 'DOGGOTOTHEMOON', spaced_name: 'DOG•GO•TO•THE•MOON' },
        ][row.rune],
        address: row.address ?? null,
        receiver_address: row.receiver ?? null,
        amount,
        operation: row.operation,
        location: {
          block_hash: H0,
          block_height: 840_000,
          tx_id: row.txId,
          tx_index: row.txIndex,
          vout: 0,
          output: `${row.txId}:0`,
          timestamp: 1_713_571_767,
        },
      });
    });

    it('names the block by height or by hash (with or without 0x, any case), with the same answer', async () => {
      const byHeight = await get('/runes/v1/blocks/840002/activity?limit=60');
      expect(byHeight.body.total).toBe(10);
      for (const form of [H2, H2.slice(2), H2.toUpperCase().replace('0X', '0x'), H2.slice(2).toUpperCase()]) {
        expect((await get(`/runes/v1/blocks/${form}/activity?limit=60`)).body).toEqual(byHeight.body);
      }
    });

    it('pages with exact totals, also past the end', async () => {
      const all: number[] = [];
      for (let offset = 0; offset < 300; offset += 60) {
        const { body } = await get(`/runes/v1/blocks/840000/activity?limit=60&offset=${offset}`);
        expect(body.total).toBe(300);
        all.push(...body.results.map((r: { location: { vout: number } }) => r.location.vout));
      }
      expect(all).toEqual(BLOCK_ROWS.map((r) => r.vout));
      const past = await get('/runes/v1/blocks/840000/activity?offset=1000');
      expect(past.body).toEqual({ limit: 20, offset: 1000, total: 300, results: [] });
      const defaults = await get('/runes/v1/blocks/840000/activity');
      expect(defaults.body.limit).toBe(20);
      expect(defaults.body.results).toHaveLength(20);
    });

    it('filters by one or several operations, comma-separated or repeated, at any offset', async () => {
      const subsets: RuneOperationName[][] = [];
      for (let mask = 1; mask < 32; mask++) subsets.push(RUNE_OPERATIONS.filter((_, i) => mask & (1 << i)));
      for (const ops of subsets) {
        const expected = BLOCK_ROWS.filter((r) => ops.includes(r.operation)).map((r) => r.vout);
        for (const [offset, limit] of [
          [0, 60],
          [7, 13],
          [expected.length - 1, 5],
          [expected.length, 5],
          [Math.floor(expected.length / 2), 1],
        ] as const) {
          const query = ops.length > 2 ? ops.map((o) => `operation=${o}`).join('&') : `operation=${ops.join(',')}`;
          const { body } = await get(`/runes/v1/blocks/840000/activity?${query}&offset=${offset}&limit=${limit}`);
          expectMessage(`${ops} total`, () => expect(body.total).toBe(expected.length));
          expectMessage(`${ops} offset ${offset} limit ${limit}`, () =>
            expect(body.results.map((r: { location: { vout: number } }) => r.location.vout)).toEqual(
              expected.slice(offset, offset + limit),
            ),
          );
        }
      }
    });

    it('answers an indexed block without activity with total 0, and an unknown block with 404', async () => {
      expect((await get('/runes/v1/blocks/840001/activity')).body).toEqual({ limit: 20, offset: 0, total: 0, results: [] });
      expect((await get(`/runes/v1/blocks/${H1}/activity?operation=mint`)).body.total).toBe(0);
      for (const block of ['839999', '0', `0x${'ff'.repeat(32)}`]) {
        const { status, body } = await get(`/runes/v1/blocks/${block}/activity`);
        expect(status).toBe(404);
        expect(body.error).toBe('not_found');
        expect(body.message).toMatch(/^block: /);
      }
    });

    it('answers 400 naming the parameter for a bad block, limit, offset or operation', async () => {
      const cases: Array<[string, RegExp]> = [
        ['/runes/v1/blocks/abc/activity', /^block: /],
        ['/runes/v1/blocks/-1/activity', /^block: /],
        ['/runes/v1/blocks/99999999999/activity', /^block: /],
        [`/runes/v1/blocks/${'a'.repeat(63)}/activity`, /^block: /],
        [`/runes/v1/blocks/0x${'g'.repeat(64)}/activity`, /^block: /],
        ['/runes/v1/blocks/840000/activity?limit=0', /^query parameter limit: /],
        ['/runes/v1/blocks/840000/activity?limit=61', /^query parameter limit: .*1 to 60/],
        ['/runes/v1/blocks/840000/activity?limit=abc', /^query parameter limit: /],
        ['/runes/v1/blocks/840000/activity?limit=1.5', /^query parameter limit: /],
        ['/runes/v1/blocks/840000/activity?limit=1&limit=2', /^query parameter limit: /],
        ['/runes/v1/blocks/840000/activity?offset=-1', /^query parameter offset: /],
        ['/runes/v1/blocks/840000/activity?offset=x', /^query parameter offset: /],
        ['/runes/v1/blocks/840000/activity?operation=mints', /^query parameter operation: /],
        ['/runes/v1/blocks/840000/activity?operation=', /^query parameter operation: /],
        ['/runes/v1/blocks/840000/activity?operation=send,', /^query parameter operation: /],
        ['/runes/v1/blocks/840000/activity?operation=send&operation=Burn', /^query parameter operation: /],
      ];
      for (const [path, message] of cases) {
        const { status, body } = await get(path);
        expectMessage(path, () => expect(status).toBe(400));
        expect(body.error).toBe('invalid_request');
        expectMessage(path, () => expect(body.message).toMatch(message));
      }
    });
  });

  describe('etchings', () => {
    it('lists runes newest first with exact totals', async () => {
      const { body } = await get('/runes/v1/etchings?limit=2');
      expect(body.total).toBe(3);
      expect(body.results.map((e: { id: string }) => e.id)).toEqual(['840000:2', '840000:1']);
      const rest = await get('/runes/v1/etchings?limit=2&offset=2');
      expect(rest.body.results.map((e: { id: string }) => e.id)).toEqual(['1:0']);
      expect((await get('/runes/v1/etchings?offset=3')).body).toEqual({ limit: 20, offset: 3, total: 3, results: [] });
    });

    it('finds a rune by id, number, name or spaced name', async () => {
      const byId = await get('/runes/v1/etchings/840000:1');
      expect(byId.status).toBe(200);
      for (const form of ['1', 'ZZZZZFEHUZZZZZ', 'zzzzzfehuzzzzz', 'Z•Z•Z•Z•Z•FEHU•Z•Z•Z•Z•Z', 'Z.Z.Z.Z.Z.FEHU.Z.Z.Z.Z.Z']) {
        await expectMessage(form, async () =>
          expect((await get(`/runes/v1/etchings/${encodeURIComponent(form)}`)).body).toEqual(byId.body),
        );
      }
      expect((await get(`/runes/v1/etchings/${encodeURIComponent('ZZZZZ•FEHUZZZZZ')}`)).status).toBe(404);
      for (const missing of ['840000:9', '9', 'NOSUCHRUNE', '99999999999:1']) {
        const { status, body } = await get(`/runes/v1/etchings/${missing}`);
        expectMessage(missing, () => expect(status).toBe(404));
        expect(body.message).toMatch(/^etching: /);
      }
      for (const bad of ['840000:x', 'A-B', '•A', 'A••B']) {
        const { status, body } = await get(`/runes/v1/etchings/${encodeURIComponent(bad)}`);
        expectMessage(bad, () => expect(status).toBe(400));
        expect(body.message).toMatch(/^etching: /);
      }
    });

    it('shows terms, supply and location; u64 bounds as exact JSON integers', async () => {
      const res = await fetch(`${base}/runes/v1/etchings/840000:1`);
      const text = await res.text();
      expect(text).toContain('"height_end":18446744073709551615');
      const body = JSON.parse(text);
      expect(body).toMatchObject({
        id: '840000:1',
        number: 1,
        divisibility: 2,
        symbol: 'ᚠ',
        turbo: false,
        mint_terms: { amount: '10.00', cap: '3', height_start: null, offset_start: 0, offset_end: null },
        supply: {
          premine: '11000.00',
          minted: '10.00',
          burned: '2.50',
          current: '11007.50',
          total_mints: '1',
          mint_percentage: '33.3333',
          mintable: true,
        },
        location: { block_hash: H0, block_height: 840_000, tx_index: 1, vout: null, output: null, timestamp: 1_713_571_767 },
      });
      const genesis = (await get('/runes/v1/etchings/UNCOMMON.GOODS')).body;
      expect(genesis.symbol).toBe('⧉');
      expect(genesis.mint_terms.cap).toBe(U128_MAX.toString());
      expect(genesis.supply.mintable).toBe(true); // tip 840,002: the next block is inside 840,000–1,049,999
      expect(genesis.location).toEqual({
        block_hash: null,
        block_height: 1,
        tx_id: null,
        tx_index: 0,
        vout: null,
        output: null,
        timestamp: 0,
      });
      const dog = (await get('/runes/v1/etchings/2')).body;
      expect(dog.mint_terms).toEqual({
        amount: null,
        cap: null,
        height_start: null,
        height_end: null,
        offset_start: null,
        offset_end: null,
      });
      expect(dog.supply).toMatchObject({ mintable: false, mint_percentage: '0.0000', premine: '10000000000.00000' });
    });

    it('serves a rune activity newest first, and per address', async () => {
      const rows = [...BLOCK_ROWS.map((r) => ({ ...r, h: 840_000 })), ...SMALL_ROWS.map((r) => ({ ...r, h: 840_002 }))];
      const ofRune = rows.filter((r) => r.rune === 1).reverse();
      const page = await get('/runes/v1/etchings/840000:1/activity?limit=60&offset=5');
      expect(page.body.total).toBe(ofRune.length);
      expect(
        page.body.results.map((r: { location: { vout: number; block_height: number } }) => [
          r.location.block_height,
          r.location.vout,
        ]),
      ).toEqual(ofRune.slice(5, 65).map((r) => [r.h, r.vout]));
      expect(page.body.results[0]).not.toHaveProperty('rune');
      const address = ADDRESSES[0]!;
      const mine = ofRune.filter((r) => r.address === address);
      const pageA = await get(`/runes/v1/etchings/ZZZZZFEHUZZZZZ/activity/${address}?limit=4&offset=1`);
      expect(pageA.body.total).toBe(mine.length);
      expect(pageA.body.results.map((r: { location: { vout: number } }) => r.location.vout)).toEqual(
        mine.slice(1, 5).map((r) => r.vout),
      );
      expect((await get(`/runes/v1/etchings/840000:1/activity/${ADDRESSES[4]!.toUpperCase()}`)).body.total).toBe(
        ofRune.filter((r) => r.address === ADDRESSES[4]).length,
      );
      expect((await get('/runes/v1/etchings/840000:1/activity/bc1qnotanaddress!')).status).toBe(400);
      expect((await get('/runes/v1/etchings/NOSUCHRUNE/activity')).status).toBe(404);
      expect((await get(`/runes/v1/etchings/NOSUCHRUNE/activity/${address}`)).status).toBe(404);
    });

    it('lists holders by balance, and one holder', async () => {
      const { body } = await get('/runes/v1/etchings/840000:1/holders');
      expect(body).toEqual({
        limit: 20,
        offset: 0,
        total: 3,
        results: [
          { address: ADDRESSES[0], balance: '7000.00' },
          // equal balances: by address ('1…' sorts before 'bc1…')
          { address: ADDRESSES[2], balance: '4000.00' },
          { address: ADDRESSES[1], balance: '4000.00' },
        ],
      });
      expect((await get('/runes/v1/etchings/840000:1/holders?offset=2')).body.results).toHaveLength(1);
      expect((await get(`/runes/v1/etchings/1/holders/${ADDRESSES[1]}`)).body).toEqual({
        address: ADDRESSES[1],
        balance: '4000.00',
      });
      expect((await get(`/runes/v1/etchings/1/holders/${ADDRESSES[3]}`)).status).toBe(404);
      expect((await get(`/runes/v1/etchings/0/holders/${ADDRESSES[0]}`)).status).toBe(404); // balance 0 is no holding
      expect((await get('/runes/v1/etchings/0/holders')).body.total).toBe(0);
    });
  });

  describe('addresses and transactions', () => {
    it('lists an address balances in rune order and its activity newest first', async () => {
      const { body } = await get(`/runes/v1/addresses/${ADDRESSES[0]}/balances`);
      expect(body).toEqual({
        limit: 20,
        offset: 0,
        total: 2,
        results: [
          {
            rune: { id: '840000:1', number: 1, name: 'ZZZZZFEHUZZZZZ', spaced_name: 'Z•Z•Z•Z•Z•FEHU•Z•Z•Z•Z•Z' },
            address: ADDRESSES[0],
            balance: '7000.00',
          },
          {
            rune: { id: '840000:2', number: 2, name: 'DOGGOTOTHEMOON', spaced_name: 'DOG•GO•TO•THE•MOON' },
            address: ADDRESSES[0],
            balance: '1234.56789',
          },
        ],
      });
      expect((await get(`/runes/v1/addresses/${ADDRESSES[4]}/balances`)).body.total).toBe(0);
      const rows = [...BLOCK_ROWS, ...SMALL_ROWS].filter((r) => r.address === ADDRESSES[3]).reverse();
      const activity = await get(`/runes/v1/addresses/${ADDRESSES[3]}/activity?limit=7&offset=2`);
      expect(activity.body.total).toBe(rows.length);
      expect(activity.body.results.map((r: { location: { vout: number } }) => r.location.vout)).toEqual(
        rows.slice(2, 9).map((r) => r.vout),
      );
      expect((await get(`/runes/v1/addresses/bc1q${'z'.repeat(38)}/activity`)).body.total).toBe(0);
      expect((await get('/runes/v1/addresses/not-an-address/balances')).body.message).toMatch(/^address: /);
    });

    it('serves a transaction activity in chain order', async () => {
      const tx = SMALL_ROWS[0]!.txId;
      const rows = SMALL_ROWS.filter((r) => r.txId === tx);
      const { body } = await get(`/runes/v1/transactions/${tx.slice(2).toUpperCase()}/activity?limit=1&offset=1`);
      expect(body.total).toBe(rows.length);
      expect(body.results.map((r: { location: { vout: number } }) => r.location.vout)).toEqual(
        rows.slice(1, 2).map((r) => r.vout),
      );
      expect((await get(`/runes/v1/transactions/${'0'.repeat(64)}/activity`)).body).toEqual({
        limit: 20,
        offset: 0,
        total: 0,
        results: [],
      });
      const bad = await get('/runes/v1/transactions/1234/activity');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/^tx_id: /);
    });
  });

  it('reads with generic plans on its own pool, and answers alike on a knex pool', async () => {
    const mode = await runes.query<{ mode: string }>("SELECT current_setting('plan_cache_mode') AS mode", []);
    expect(mode).toEqual([{ mode: 'force_generic_plan' }]);
    // Numeric and int8 columns stay exact strings on this pool too.
    expect(
      await runes.query('SELECT ?::numeric AS n, ?::bigint AS b', [
        '340282366920938463463374607431768211455',
        '9007199254740993',
      ]),
    ).toEqual([{ n: '340282366920938463463374607431768211455', b: '9007199254740993' }]);
    const app = express();
    app.set('query parser', 'simple');
    app.use(runesRouter({ db: knexRunesDb(db), serverVersion: 'test' }));
    app.use(errorMiddleware(createLogger('runes-api-test', 'silent')));
    const { server: s, port } = await listen(app, 0, '127.0.0.1');
    try {
      for (const path of [
        '/runes/v1/blocks/840000/activity?offset=7&limit=60',
        `/runes/v1/blocks/${H2}/activity`,
        '/runes/v1/blocks/840000/activity?operation=send,receive&offset=20',
        '/runes/v1/etchings',
      ]) {
        const viaKnex = await fetchRunes(`http://127.0.0.1:${port}`, path);
        expect(viaKnex.status).toBe(200);
        expect(viaKnex.body).toEqual((await get(path)).body);
      }
    } finally {
      await closeServer(s);
    }
  });

  it('takes its page sizes from configuration', async () => {
    const app = express();
    app.set('query parser', 'simple');
    app.use(runesRouter({ db: runes, limits: { default: 5, max: 100 } }));
    app.use(errorMiddleware(createLogger('runes-api-test', 'silent')));
    const { server: s, port } = await listen(app, 0, '127.0.0.1');
    try {
      expect((await fetchRunes(`http://127.0.0.1:${port}`, '/runes/v1/blocks/840000/activity')).body.results).toHaveLength(5);
      expect(
        (await fetchRunes(`http://127.0.0.1:${port}`, '/runes/v1/blocks/840000/activity?limit=100')).body.results,
      ).toHaveLength(100);
    } finally {
      await closeServer(s);
    }
  });
});

describe('/runes/v1 in the api app', () => {
  it('is mounted, documented and answers with the documented shapes', async () => {
    const api = await startApi(testInfra().databaseUrl);
    try {
      const status = await api.get('/runes/v1/');
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ status: 'ready', block_height: null, block_hash: null });
      expect((await api.get('/runes/v1/blocks/1/activity')).status).toBe(404);
      expect((await api.get('/runes/v1/blocks/x/activity')).status).toBe(400);
      expect((await api.get('/runes/v1/etchings')).body).toEqual({ limit: 20, offset: 0, total: 0, results: [] });
      expect(api.validatedCount()).toBe(4);
      const doc = (await api.get('/openapi.json')).body as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/runes/v1'))).toHaveLength(11);
    } finally {
      await api.close();
    }
  });
});
