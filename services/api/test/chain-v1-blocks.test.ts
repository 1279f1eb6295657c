/**
 * `/extended/v1/block…` over recorded fixtures replayed through the real observer and indexer, against the chain
 * computed from the fixture's raw events (chain-fixture-oracle.ts): every canonical block, its transaction ids in the
 * reference's order, its burn block, and (on the microblock recording) the microblocks it accepted and streamed.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Knex } from 'knex';
import { MIGRATIONS } from '@bda/db';
import { testInfra, expectMessage } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';
import { expectKeptTxTextsAsRendered } from './support/kept-tx-json';
import { expectKeptSummariesAsRendered } from './support/kept-tx-summaries';
import { chainOracle, v1TxOrder, type ChainOracle, type OracleBlock } from './chain-fixture-oracle';
import { getV1Block, getV1BlockJson, getV1BlockPartsPage, getV1BlockPage } from '../src/chain/datastore/v1-blocks';
import type { DbBlockRow } from '../src/chain/datastore/blocks';
import { toV1BlockJson, toV1BlockListJson } from '../src/chain/mappers/v1-block';

const WARNING = '299 - "Deprecated: Endpoint is deprecated"';

/** At most `n` items spread evenly over `items`, the first and the last among them: keeps the per-item loops short. */
function sample<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]!);
}

/**
 * Every canonical block's v1 answer, alone and in pages of 20, is the text the api renders from the block's columns
 * (`getV1Block`/`getV1BlockPage` and the v1 mapper, as before ADR 0042), byte for byte, and it came from the kept
 * texts (migration 107), not from that fallback.
 */
async function expectV1TextsAsRendered(api: ApiHarness, canonical: readonly OracleBlock[]): Promise<void> {
  for (const b of canonical) {
    const key = { kind: 'height', height: b.block_height } as const;
    const { block } = await getV1Block(api.db, key);
    const expected = toV1BlockJson(block!);
    expect((await getV1BlockJson(api.db, key)).text).toBe(expected);
    const res = await api.get(`/extended/v1/block/by_height/${b.block_height}`);
    expectMessage(`height ${b.block_height}`, () => expect(res.text).toBe(expected));
  }
  for (let offset = 0; offset < canonical.length; offset += 20) {
    expect((await getV1BlockPartsPage(api.db, { limit: 20, offset })).complete).toBe(true);
    const { tip, rows } = await getV1BlockPage(api.db, { limit: 20, offset });
    const res = await api.get(`/extended/v1/block?offset=${offset}`);
    expect(res.text).toBe(toV1BlockListJson({ limit: 20, offset, total: tip!.block_count }, rows));
  }
}

/**
 * Each block's own parts (`blocks.v1_json`, generated) are the v1 mapper's text of the row around its ids, canonical
 * or not: as indexed, after a reorg's flips of every flag (rolled back) and as migration 107 fills them.
 */
async function expectOwnV1PartsAsRendered(api: ApiHarness, oracle: ChainOracle): Promise<void> {
  type Row = DbBlockRow & { own: string | null };
  const OWN = `SELECT *, v1_json[1] || '[]' || v1_json[2]
      || ',"microblocks_accepted":[],"microblocks_streamed":[],"microblock_tx_count":{}}' AS own FROM blocks`;
  const rendered = (rows: Row[]) =>
    rows.map((r) => [
      r.index_block_hash,
      toV1BlockJson({ ...r, tx_ids_json: null, microblock_tx_counts: null, accepted: null, streamed: null }),
    ]);
  const kept = (rows: Row[]) => rows.map((r) => [r.index_block_hash, r.own]);
  const all = (await api.db.raw(`${OWN} ORDER BY index_block_hash`)).rows as Row[];
  expect(all.length).toBe(oracle.blocks.length);
  expect(kept(all)).toEqual(rendered(all));
  const trx = await api.db.transaction();
  try {
    await trx.raw('UPDATE blocks SET canonical = false');
    const off = (await trx.raw(`${OWN} ORDER BY index_block_hash`)).rows as Row[];
    expect(off.every((r) => r.own!.startsWith('{"canonical":false,'))).toBe(true);
    expect(kept(off)).toEqual(rendered(off));
    await trx.raw('UPDATE blocks SET canonical = true WHERE index_block_hash = ANY(?)', [
      oracle.canonical.map((b) => b.index_block_hash),
    ]);
    const [, migration] = MIGRATIONS.find(([name]) => name === '107-v1-block-json')!;
    await migration.down(trx);
    await migration.up(trx);
    const on = (await trx.raw(`${OWN} WHERE canonical ORDER BY index_block_hash`)).rows as Row[];
    expect(on.length).toBe(oracle.canonical.length);
    expect(kept(on)).toEqual(rendered(on));
  } finally {
    await trx.rollback();
  }
}

describe.each(['mocknet.tsv', 'mainnet-reorg-scenario1.tsv'])('v1 blocks over %s', (fixture) => {
  let api: ApiHarness;
  let oracle: ChainOracle;

  beforeAll(async () => {
    oracle = chainOracle(fixture);
    api = await startApi(testInfra().databaseUrl, { fixture });
  }, 180_000);

  afterAll(async () => {
    await api?.close();
  });

  const expectBlock = (got: Record<string, unknown>, b: OracleBlock) => {
    expect(got).toMatchObject({
      canonical: true,
      height: b.block_height,
      hash: b.block_hash,
      index_block_hash: b.index_block_hash,
      burn_block_hash: b.burn_block_hash,
      burn_block_height: b.burn_block_height,
      burn_block_time: b.burn_block_time,
      burn_block_time_iso: new Date(b.burn_block_time * 1000).toISOString(),
      txs: v1TxOrder(b),
    });
  };

  it('lists the canonical blocks newest first, 20 a page, with the canonical count as total', async () => {
    const res = await api.get('/extended/v1/block');
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toBe(WARNING);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, total: oracle.canonical.length });
    const newest = [...oracle.canonical].reverse();
    expect(res.body.results.map((b: { height: number }) => b.height)).toEqual(newest.slice(0, 20).map((b) => b.block_height));
    res.body.results.forEach((got: Record<string, unknown>, i: number) => expectBlock(got, newest[i]!));
  });

  it('pages every canonical block exactly once', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < oracle.canonical.length + 7; offset += 7) {
      const res = await api.get(`/extended/v1/block?limit=7&offset=${offset}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.results.map((b: { index_block_hash: string }) => b.index_block_hash));
    }
    expect(seen).toEqual([...oracle.canonical].reverse().map((b) => b.index_block_hash));
  });

  it('answers canonical blocks by height and by hash, and no orphaned one', async () => {
    for (const b of sample(oracle.canonical, 16)) {
      const byHeight = await api.get(`/extended/v1/block/by_height/${b.block_height}`);
      expectMessage(`height ${b.block_height}`, () => expect(byHeight.status).toBe(200));
      expect(byHeight.headers.get('warning')).toBe(WARNING);
      expectBlock(byHeight.body, b);
      const byHash = await api.get(`/extended/v1/block/${b.block_hash}`);
      expect(byHash.body).toEqual(byHeight.body);
    }
    for (const o of oracle.blocks.filter((b) => !b.canonical)) {
      const res = await api.get(`/extended/v1/block/${o.block_hash}`);
      expect(res.status).toBe(404);
    }
    const past = await api.get(`/extended/v1/block/by_height/${oracle.tip.block_height + 1}`);
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ error: 'not_found', message: expect.stringContaining('height') });
  });

  it('answers the newest canonical block of each burn block, by burn height and burn hash', async () => {
    for (const burn of sample(oracle.burnBlocks, 16)) {
      const newest = burn.blocks[burn.blocks.length - 1]!;
      const byHeight = await api.get(`/extended/v1/block/by_burn_block_height/${burn.burn_block_height}`);
      expectMessage(`burn height ${burn.burn_block_height}`, () => expect(byHeight.status).toBe(200));
      expectBlock(byHeight.body, newest);
      const byHash = await api.get(
        `/extended/v1/block/by_burn_block_hash/${burn.burn_block_hash.toUpperCase().replace('0X', '0x')}`,
      );
      expectBlock(byHash.body, newest);
    }
    const missing = await api.get(`/extended/v1/block/by_burn_block_height/${oracle.tip.burn_block_height + 1}`);
    expect(missing.status).toBe(404);
  });

  it('redirects a hash without 0x to the 0x form, as the reference does', async () => {
    const b = oracle.canonical[1]!;
    const res = await request(api.server)
      .get(`/extended/v1/block/${b.block_hash.slice(2)}`)
      .redirects(0);
    expect(res.status).toBe(302);
    expect(res.headers['location']).toBe(`/extended/v1/block/${b.block_hash}`);
    const burn = await request(api.server)
      .get(`/extended/v1/block/by_burn_block_hash/${b.burn_block_hash.slice(2)}`)
      .redirects(0);
    expect(burn.status).toBe(302);
    expect(burn.headers['location']).toBe(`/extended/v1/block/by_burn_block_hash/${b.burn_block_hash}`);
  });

  it('keeps each block’s ids, canonical or orphaned, in the order of its raw block (block_tx_ids, migration 093)', async () => {
    const expected = new Map<string, string>();
    for (const b of oracle.blocks) if (b.txs.length > 0) expected.set(b.index_block_hash, JSON.stringify(v1TxOrder(b)));
    if (fixture.includes('reorg')) expect(oracle.blocks.some((b) => !b.canonical && b.txs.length > 0)).toBe(true);
    const { rows } = (await api.db.raw('SELECT index_block_hash, tx_ids FROM block_tx_ids')) as {
      rows: Array<{ index_block_hash: string; tx_ids: string }>;
    };
    expect(new Map(rows.map((r) => [r.index_block_hash, r.tx_ids]))).toEqual(expected);
  });

  it('answers every canonical block and page with the text the v1 mapper renders from its columns (kept parts, migration 107)', async () => {
    await expectV1TextsAsRendered(api, oracle.canonical);
  });

  it('keeps each block’s own v1 parts as the mapper renders its row, canonical or not, and migration 107 fills the same', async () => {
    await expectOwnV1PartsAsRendered(api, oracle);
  });

  it('answers malformed input with a 400 naming the parameter', async () => {
    for (const [path, name] of [
      ['/extended/v1/block/by_height/-1', 'height'],
      ['/extended/v1/block/by_height/1.5', 'height'],
      ['/extended/v1/block/by_burn_block_height/abc', 'burn_block_height'],
      ['/extended/v1/block/0x1234', 'hash'],
      [`/extended/v1/block/by_burn_block_hash/${'z'.repeat(64)}`, 'burn_block_hash'],
      ['/extended/v1/block?limit=31', 'limit'],
      ['/extended/v1/block?offset=-1', 'offset'],
    ] as const) {
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(400));
      expect(res.body.message).toContain(name);
    }
  });
});

describe('v1 blocks over mainnet-out-of-order-microblock.tsv', () => {
  let api: ApiHarness;
  let oracle: ChainOracle;

  beforeAll(async () => {
    oracle = chainOracle('mainnet-out-of-order-microblock.tsv');
    api = await startApi(testInfra().databaseUrl, { fixture: 'mainnet-out-of-order-microblock.tsv' });
  }, 180_000);

  afterAll(async () => {
    await api?.close();
  });

  /** The microblocks a block confirmed, from its own transactions: by sequence, with how many of its transactions each carried. */
  const accepted = (b: OracleBlock) => {
    const counts = new Map<string, { seq: number; n: number }>();
    for (const t of b.txs) {
      if (!t.microblock_hash) continue;
      const c = counts.get(t.microblock_hash) ?? { seq: t.microblock_sequence!, n: 0 };
      c.n += 1;
      counts.set(t.microblock_hash, c);
    }
    return [...counts.entries()].sort((a, b) => a[1].seq - b[1].seq);
  };

  it('shows the parent microblock, the accepted and streamed microblocks and their transaction counts', async () => {
    let sawMicroblocks = false;
    for (const [i, b] of oracle.canonical.entries()) {
      const res = await api.get(`/extended/v1/block/by_height/${b.block_height}`);
      expect(res.status).toBe(200);
      const acc = accepted(b);
      if (acc.length > 0) sawMicroblocks = true;
      const none = /^0x0*$/.test(b.parent_microblock);
      expect(res.body).toMatchObject({
        txs: v1TxOrder(b),
        parent_microblock_hash: none ? '' : b.parent_microblock,
        parent_microblock_sequence: none ? -1 : b.parent_microblock_sequence,
        microblocks_accepted: acc.map(([h]) => h),
        microblock_tx_count: Object.fromEntries(acc.map(([h, c]) => [h, c.n])),
      });
      const child = oracle.canonical[i + 1];
      if (child) expect(res.body.microblocks_streamed).toEqual(accepted(child).map(([h]) => h));
    }
    expect(sawMicroblocks).toBe(true);
  });

  it('answers every canonical block and page with the text the v1 mapper renders from its columns, microblocks included (migration 107)', async () => {
    await expectV1TextsAsRendered(api, oracle.canonical);
    await expectOwnV1PartsAsRendered(api, oracle);
  });

  it('keeps each transaction’s v3 summary, microblock ones included, as the api’s mapper renders its row (migration 108)', async () => {
    expect(await expectKeptSummariesAsRendered(api)).toBe(oracle.blocks.reduce((n, b) => n + b.txs.length, 0));
  });

  it('answers a block whose values JavaScript writes otherwise from its columns, alone and in its page', async () => {
    const b = oracle.canonical[oracle.canonical.length - 1]!;
    const before = (
      await api.db.raw('SELECT execution_cost_runtime FROM blocks WHERE index_block_hash = ?', [b.index_block_hash])
    ).rows[0].execution_cost_runtime as string;
    await api.db.raw('UPDATE blocks SET execution_cost_runtime = 9007199254740993 WHERE index_block_hash = ?', [
      b.index_block_hash,
    ]);
    try {
      const key = { kind: 'height', height: b.block_height } as const;
      expect((await getV1BlockJson(api.db, key)).text).toBeNull();
      expect((await getV1BlockPartsPage(api.db, { limit: 20, offset: 0 })).complete).toBe(false);
      const { block } = await getV1Block(api.db, key);
      const one = await api.get(`/extended/v1/block/by_height/${b.block_height}`);
      expect(one.text).toBe(toV1BlockJson(block!));
      expect(one.body.execution_cost_runtime).toBe(9007199254740992);
      const { tip, rows } = await getV1BlockPage(api.db, { limit: 20, offset: 0 });
      const page = await api.get('/extended/v1/block');
      expect(page.text).toBe(toV1BlockListJson({ limit: 20, offset: 0, total: tip!.block_count }, rows));
      expect(page.body.results[0].execution_cost_runtime).toBe(9007199254740992);
    } finally {
      await api.db.raw('UPDATE blocks SET execution_cost_runtime = ? WHERE index_block_hash = ?', [before, b.index_block_hash]);
    }
  });

  it('keeps each canonical transaction’s list text as the api renders it by id, and migration 095 fills the same (tx_list_json)', async () => {
    expect(await expectKeptTxTextsAsRendered(api.db)).toBe(oracle.canonical.reduce((n, b) => n + b.txs.length, 0));
  });

  it('keeps each block’s ids and microblock counts as its raw block gives them, and migration 093 fills the same rows', async () => {
    const expected = new Map<string, { tx_ids: string; microblock_tx_counts: Record<string, number> | null }>();
    for (const b of oracle.blocks) {
      if (b.txs.length === 0) continue;
      const counts = accepted(b);
      expected.set(b.index_block_hash, {
        tx_ids: JSON.stringify(v1TxOrder(b)),
        microblock_tx_counts: counts.length > 0 ? Object.fromEntries(counts.map(([h, c]) => [h, c.n])) : null,
      });
    }
    expect([...expected.values()].some((r) => r.microblock_tx_counts !== null)).toBe(true);
    const kept = async (db: Knex) =>
      new Map(
        (
          (await db.raw('SELECT index_block_hash, tx_ids, microblock_tx_counts FROM block_tx_ids')) as {
            rows: Array<{ index_block_hash: string; tx_ids: string; microblock_tx_counts: Record<string, number> | null }>;
          }
        ).rows.map(({ index_block_hash, ...r }) => [index_block_hash, r]),
      );
    // As the indexer wrote them.
    expect(await kept(api.db)).toEqual(expected);
    // As the migration fills them from the transactions already indexed (then put back as they were).
    const [, migration] = MIGRATIONS.find(([name]) => name === '093-block-tx-ids')!;
    const trx = await api.db.transaction();
    try {
      await migration.down(trx);
      await migration.up(trx);
      expect(await kept(trx)).toEqual(expected);
    } finally {
      await trx.rollback();
    }
  });
});

describe('v1 blocks over epoch-3-transition.tsv', () => {
  let api: ApiHarness;
  let oracle: ChainOracle;

  beforeAll(async () => {
    oracle = chainOracle('epoch-3-transition.tsv');
    api = await startApi(testInfra().databaseUrl, { fixture: 'epoch-3-transition.tsv' });
  }, 180_000);

  afterAll(async () => {
    await api?.close();
  });

  it('answers every canonical block and page, Nakamoto ones included, with the text the v1 mapper renders from its columns (migration 107)', async () => {
    expect(oracle.canonical.length).toBeGreaterThan(20);
    await expectV1TextsAsRendered(api, oracle.canonical);
    await expectOwnV1PartsAsRendered(api, oracle);
  });
});
