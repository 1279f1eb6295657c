/**
 * `/extended/v2/burn-blocks…`, `/extended/v2/blocks/{height_or_hash}/transactions`, `/signer-signatures`,
 * `/extended/v3/blocks/{height_or_hash}/transactions`, `/by-block-time/{ts}` and `/average-times` over recorded fixtures replayed through the real observer and indexer (the burn blocks come from the
 * indexer's `chain_burn_blocks` read model, kept through the reorg recording), against the chain computed from the
 * fixture's raw events; average times also over hand-written blocks timed relative to now.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import { BlockRowBuilder } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { expectKeptSummariesAsRendered } from './support/kept-tx-summaries';
import { insertBlocks, setChainTip } from './support/seed';
import { deserializeTransaction } from '@stacks/transactions';
import { blockTxOrder, chainOracle, type ChainOracle, type OracleBlock } from './chain-fixture-oracle';
import { toBlockResponse } from '../src/chain/mappers/block';
import type { DbBlockRow } from '../src/chain/datastore/blocks';

/** A block's time as the reference's v2 views use it: its own, else (before Nakamoto) its burn block's. */
/** At most `n` items spread evenly over `items`, the first and the last among them: keeps the per-item loops short. */
function sample<T>(items: readonly T[], n = 12): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]!);
}

const timeOf = (b: OracleBlock) => (b.block_time && b.block_time > 0 ? b.block_time : b.burn_block_time);

describe.each(['mocknet.tsv', 'mainnet-reorg-scenario1.tsv', 'epoch-3-transition.tsv'])('v2 burn blocks over %s', (fixture) => {
  let api: ApiHarness;
  let oracle: ChainOracle;

  beforeAll(async () => {
    oracle = chainOracle(fixture);
    api = await startApi(testInfra().databaseUrl, { fixture });
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  const expected = (burn: ChainOracle['burnBlocks'][number]) => {
    const bs = burn.blocks;
    const gaps = bs.length - 1;
    return {
      burn_block_time: burn.burn_block_time,
      burn_block_time_iso: new Date(burn.burn_block_time * 1000).toISOString(),
      burn_block_hash: burn.burn_block_hash,
      burn_block_height: burn.burn_block_height,
      stacks_blocks: [...bs].reverse().map((b) => b.block_hash),
      avg_block_time: gaps > 0 ? Number(((timeOf(bs[gaps]!) - timeOf(bs[0]!)) / gaps).toFixed(2)) : 0,
      total_tx_count: bs.reduce((n, b) => n + b.txs.length, 0),
    };
  };

  it('lists every burn block holding canonical Stacks blocks, newest first, at any offset', async () => {
    const newest = [...oracle.burnBlocks].reverse();
    const first = await api.get('/extended/v2/burn-blocks');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ limit: 20, offset: 0, total: newest.length });
    const seen: unknown[] = [];
    for (let offset = 0; offset < newest.length + 7; offset += 7) {
      const res = await api.get(`/extended/v2/burn-blocks?limit=7&offset=${offset}`);
      expect(res.body.total).toBe(newest.length);
      seen.push(...res.body.results);
      // Byte for byte, key order included, what JSON.stringify writes of the reference's shape.
      const want = { limit: 7, offset, total: newest.length, results: newest.slice(offset, offset + 7).map(expected) };
      expectMessage(`offset ${offset}`, () => expect(res.text).toBe(JSON.stringify(want)));
    }
    expect(seen).toEqual(newest.map(expected));
  });

  it('answers a burn block whose time the kept text cannot write from its blocks, as JavaScript writes it', async () => {
    // From the year 10000 on, toISOString writes a six-digit year: migration 098's head is null there.
    const burn = oracle.burnBlocks[oracle.burnBlocks.length - 1]!;
    const far = 253_402_300_800;
    await api.db.raw('UPDATE chain_burn_blocks SET burn_block_time = ? WHERE burn_block_height = ?', [
      far,
      burn.burn_block_height,
    ]);
    try {
      const head = await api.db.raw('SELECT json_head FROM chain_burn_blocks WHERE burn_block_height = ?', [
        burn.burn_block_height,
      ]);
      expect(head.rows).toEqual([{ json_head: null }]);
      const res = await api.get('/extended/v2/burn-blocks?limit=2');
      const newest = [...oracle.burnBlocks].reverse().slice(0, 2).map(expected);
      newest[0] = { ...newest[0]!, burn_block_time: far, burn_block_time_iso: '+010000-01-01T00:00:00.000Z' };
      expect(res.text).toBe(JSON.stringify({ limit: 2, offset: 0, total: oracle.burnBlocks.length, results: newest }));
    } finally {
      await api.db.raw('UPDATE chain_burn_blocks SET burn_block_time = ? WHERE burn_block_height = ?', [
        burn.burn_block_time,
        burn.burn_block_height,
      ]);
    }
  });

  it('lists the canonical Stacks blocks newest first, each block kept as the text its columns render to', async () => {
    const newest = [...oracle.canonical].reverse();
    const seen: Array<Record<string, unknown>> = [];
    for (let offset = 0; offset < newest.length; offset += 30) {
      const res = await api.get(`/extended/v2/blocks?limit=30&offset=${offset}`);
      expect(res.body.total).toBe(newest.length);
      expect(res.text).toBe(JSON.stringify(res.body));
      seen.push(...res.body.results);
    }
    expect(seen.map((b) => b.index_block_hash)).toEqual(newest.map((b) => b.index_block_hash));
    expect(seen).toEqual(
      newest.map((b) =>
        expect.objectContaining({
          canonical: true,
          height: b.block_height,
          hash: b.block_hash,
          block_time: timeOf(b),
          burn_block_time: b.burn_block_time,
          // A block's times are '' for 0 (the reference's unixTimeToISOString), unlike a burn block's.
          burn_block_time_iso: b.burn_block_time > 0 ? new Date(b.burn_block_time * 1000).toISOString() : '',
          burn_block_hash: b.burn_block_hash,
          burn_block_height: b.burn_block_height,
          parent_index_block_hash: b.parent_index_block_hash,
          tx_count: b.txs.length,
        }),
      ),
    );
    // Every block, orphaned ones too, and again with each flag flipped (rolled back): the generated text follows.
    const rendered = (rows: DbBlockRow[]) => rows.map((r) => [r.index_block_hash, JSON.stringify(toBlockResponse(r))]);
    const kept = (rows: Array<DbBlockRow & { v2_json: string | null }>) => rows.map((r) => [r.index_block_hash, r.v2_json]);
    const all = (await api.db.raw('SELECT * FROM blocks ORDER BY index_block_hash')).rows;
    expect(all.length).toBe(oracle.blocks.length);
    expect(kept(all)).toEqual(rendered(all));
    await api.db
      .transaction(async (trx) => {
        // As a reorg's flips: every block off the chain, then the canonical ones back on it.
        const off = (await trx.raw('UPDATE blocks SET canonical = false RETURNING *')).rows;
        expect(off.length).toBe(all.length);
        expect(kept(off)).toEqual(rendered(off));
        expect(off.every((r: { v2_json: string }) => r.v2_json.startsWith('{"canonical":false,'))).toBe(true);
        const on = (
          await trx.raw('UPDATE blocks SET canonical = true WHERE index_block_hash = ANY(?) RETURNING *', [
            oracle.canonical.map((b) => b.index_block_hash),
          ])
        ).rows;
        expect(on.length).toBe(oracle.canonical.length);
        expect(kept(on)).toEqual(rendered(on));
        expect(on.every((r: { v2_json: string }) => r.v2_json.startsWith('{"canonical":true,'))).toBe(true);
        throw new Error('rollback');
      })
      .catch((err: Error) => {
        if (err.message !== 'rollback') throw err;
      });
  });

  it('answers one burn block by height, hash (with or without 0x) and latest, and its Stacks blocks', async () => {
    for (const burn of sample(oracle.burnBlocks)) {
      const want = expected(burn);
      const byHeight = await api.get(`/extended/v2/burn-blocks/${burn.burn_block_height}`);
      expectMessage(`burn height ${burn.burn_block_height}`, () => expect(byHeight.body).toEqual(want));
      expect((await api.get(`/extended/v2/burn-blocks/${burn.burn_block_hash.slice(2)}`)).body).toEqual(want);
      const blocks = await api.get(`/extended/v2/burn-blocks/${burn.burn_block_hash}/blocks`);
      expect(blocks.body).toMatchObject({ limit: 20, offset: 0, total: burn.blocks.length });
      expect(blocks.body.results.map((b: { index_block_hash: string }) => b.index_block_hash)).toEqual(
        [...burn.blocks].reverse().map((b) => b.index_block_hash),
      );
    }
    const latest = await api.get('/extended/v2/burn-blocks/latest');
    expect(latest.body).toEqual(expected(oracle.burnBlocks[oracle.burnBlocks.length - 1]!));
    const heights = new Set(oracle.burnBlocks.map((b) => b.burn_block_height));
    const gap = [...Array(oracle.tip.burn_block_height).keys()].find((h) => h > 0 && !heights.has(h));
    if (gap !== undefined) {
      expect((await api.get(`/extended/v2/burn-blocks/${gap}`)).status).toBe(404);
      expect((await api.get(`/extended/v2/burn-blocks/${gap}/blocks`)).status).toBe(404);
    }
    expect((await api.get(`/extended/v2/burn-blocks/${oracle.tip.burn_block_height + 1}`)).status).toBe(404);
  });

  it("pages a block's transactions in execution order, by height, hash, index block hash and latest", async () => {
    for (const b of sample(oracle.canonical, 16)) {
      const byHeight = await api.get(`/extended/v2/blocks/${b.block_height}/transactions?limit=50`);
      expectMessage(`height ${b.block_height}`, () =>
        expect(byHeight.body.results.map((t: { tx_id: string }) => t.tx_id)).toEqual(blockTxOrder(b)),
      );
      expect(byHeight.body.total).toBe(b.txs.length);
      const byIndexHash = await api.get(`/extended/v2/blocks/${b.index_block_hash}/transactions?limit=50`);
      expect(byIndexHash.body).toEqual(byHeight.body);
    }
    const paged = await api.get(`/extended/v2/blocks/${oracle.tip.block_hash}/transactions?limit=1&offset=1`);
    expect(paged.body.results.map((t: { tx_id: string }) => t.tx_id)).toEqual(blockTxOrder(oracle.tip).slice(1, 2));
    const latest = await api.get('/extended/v2/blocks/latest/transactions');
    expect(latest.body.total).toBe(oracle.tip.txs.length);
    expect((await api.get(`/extended/v2/blocks/${oracle.tip.block_height + 1}/transactions`)).status).toBe(404);
  });

  it("pages a block's transaction summaries (v3) by cursor from the newest down, each as its raw transaction says", async () => {
    const ANCHORED = 2147483647;
    for (const b of sample(oracle.canonical, 10)) {
      const want = [...blockTxOrder(b)].reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      let previousCurrent: string | null = null;
      for (let pages = 0; pages <= want.length; pages++) {
        type Page = {
          total: number;
          cursor: Record<'next' | 'previous' | 'current', string | null>;
          results: Array<{ tx_id: string }>;
        };
        const res: { status: number; body: Page } = await api.get<Page>(
          `/extended/v3/blocks/${b.block_height}/transactions?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expectMessage(`height ${b.block_height} cursor ${cursor}`, () => expect(res.status).toBe(200));
        expect(res.body.total).toBe(b.txs.length);
        expect(res.body.cursor.previous).toBe(previousCurrent);
        seen.push(...res.body.results.map((t) => t.tx_id));
        previousCurrent = res.body.cursor.current;
        cursor = res.body.cursor.next;
        if (cursor === null) break;
      }
      expectMessage(`height ${b.block_height}`, () => expect(seen).toEqual(want));
      const all = await api.get(`/extended/v3/blocks/${b.index_block_hash}/transactions?limit=50`);
      type Summary = {
        tx_id: string;
        fee_rate: string;
        status: string;
        sender: { nonce: number };
        block: { tx_index: number };
        bitcoin_block: unknown;
      };
      for (const s of all.body.results as Summary[]) {
        const raw = b.txs.find((t) => t.tx_id === s.tx_id)!;
        expect(s.block).toMatchObject({ height: b.block_height, hash: b.block_hash, index_hash: b.index_block_hash });
        expect(s.block.tx_index).toBe(raw.tx_index);
        expect(s.bitcoin_block).toEqual({ height: b.burn_block_height, time: b.burn_block_time });
        expect(s.status).toBe(raw.status);
        if (raw.raw_tx !== '0x00') {
          const cond = deserializeTransaction(raw.raw_tx.replace(/^0x/, '')).auth.spendingCondition;
          expect(s.fee_rate).toBe(String(cond.fee));
          expect(s.sender.nonce).toBe(Number(cond.nonce));
        }
      }
      if (all.body.results.length > 0) {
        const top = all.body.results[0] as { tx_id: string };
        const t = b.txs.find((x) => x.tx_id === top.tx_id)!;
        expect(all.body.cursor.current).toBe(`${b.block_height}:${t.microblock_sequence ?? ANCHORED}:${t.tx_index}`);
      }
    }
    // `h:0:0` naming no transaction means the top of height h, as the reference resolves it.
    const tip = oracle.tip;
    const fromTop = await api.get(`/extended/v3/blocks/latest/transactions?cursor=${tip.block_height}:0:0`);
    expect(fromTop.body.results.map((t: { tx_id: string }) => t.tx_id)).toEqual([...blockTxOrder(tip)].reverse().slice(0, 20));
    expect((await api.get(`/extended/v3/blocks/${tip.block_height + 1}/transactions`)).status).toBe(404);
    for (const path of [
      '/extended/v3/blocks/1/transactions?limit=0',
      '/extended/v3/blocks/1/transactions?cursor=1:2',
      '/extended/v3/blocks/1/transactions?cursor=1:2:99999999999',
    ]) {
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(400));
      expect(res.body.message).toContain(path.includes('limit') ? 'limit' : 'cursor');
    }
  });

  it("keeps each transaction's v3 summary as the api's mapper renders its row, and pages a block's from them (migration 108)", async () => {
    expect(await expectKeptSummariesAsRendered(api)).toBe(oracle.blocks.reduce((n, b) => n + b.txs.length, 0));
  });

  it("answers a block's signer signatures in the node's order, a page at a time", async () => {
    const signed = oracle.canonical.filter((b) => b.signer_signature.length > 0);
    for (const b of [...sample(signed, 6), ...sample(oracle.canonical, 4)]) {
      const want = b.signer_signature.map((s) => (s.startsWith('0x') ? s : `0x${s}`));
      const all = await api.get(`/extended/v2/blocks/${b.block_height}/signer-signatures`);
      expectMessage(`height ${b.block_height}`, () =>
        expect(all.body).toEqual({ limit: 500, offset: 0, total: want.length, results: want }),
      );
      const page = await api.get(`/extended/v2/blocks/${b.block_hash}/signer-signatures?limit=2&offset=1`);
      expect(page.body.results).toEqual(want.slice(1, 3));
    }
    const unknown = await api.get(`/extended/v2/blocks/${oracle.tip.block_height + 1}/signer-signatures`);
    expect(unknown.body).toEqual({ limit: 500, offset: 0, total: 0, results: [] });
  });

  it('answers the newest canonical block at or before a time', async () => {
    const byTime = (t: number) =>
      oracle.canonical.filter((b) => timeOf(b) <= t).sort((x, y) => timeOf(y) - timeOf(x) || y.block_height - x.block_height)[0];
    const times = [...new Set(oracle.canonical.map(timeOf))];
    for (const t of sample([...times, ...times.map((x) => x + 1)], 20)) {
      const want = byTime(t);
      const res = await api.get(`/extended/v2/blocks/by-block-time/${t}`);
      expectMessage(`time ${t}`, () => expect(res.body.index_block_hash).toBe(want!.index_block_hash));
    }
    // Before the first block (when its time is not 0, the genesis burn block's).
    const before = Math.min(...times) - 1;
    if (before >= 0) expect((await api.get(`/extended/v2/blocks/by-block-time/${before}`)).status).toBe(404);
  });

  it("leaves the indexer's chain read models equal to their definition over the canonical rows", async () => {
    // What migration 051 fills them with from scratch: the indexer keeps them block by block through the reorgs.
    const burn = await api.db.raw(
      `SELECT burn_block_height, (array_agg(burn_block_hash ORDER BY block_height DESC))[1] AS burn_block_hash,
              (array_agg(burn_block_time ORDER BY block_height DESC))[1]::text AS burn_block_time, min(block_height) AS first_block_height,
              max(block_height) AS last_block_height, sum(tx_count)::text AS tx_count,
              (row_number() OVER (ORDER BY burn_block_height))::int AS ordinal,
              (array_agg(coalesce(nullif(block_time, 0), burn_block_time) ORDER BY block_height))[1]::text AS first_time,
              (array_agg(coalesce(nullif(block_time, 0), burn_block_time) ORDER BY block_height DESC))[1]::text AS last_time,
              count(*)::int AS block_count
       FROM blocks WHERE canonical GROUP BY burn_block_height ORDER BY burn_block_height`,
    );
    const kept = await api.db.raw(
      `SELECT burn_block_height, burn_block_hash, burn_block_time::text, first_block_height, last_block_height,
              tx_count::text, ordinal, first_time::text, last_time::text, block_count, stacks_blocks
       FROM chain_burn_blocks ORDER BY burn_block_height`,
    );
    // Migration 098's stacks_blocks: the hashes of the oracle's canonical blocks of that burn block, highest first.
    expect(kept.rows).toEqual(
      burn.rows.map((r: { burn_block_height: number }) => ({
        ...r,
        stacks_blocks: JSON.stringify(
          [...oracle.burnBlocks.find((b) => b.burn_block_height === r.burn_block_height)!.blocks]
            .reverse()
            .map((b) => b.block_hash),
        ),
      })),
    );
    expect(kept.rows.map((r: { burn_block_height: number }) => r.burn_block_height)).toEqual(
      oracle.burnBlocks.map((b) => b.burn_block_height),
    );
    const counts = await api.db.raw(
      `SELECT type_id, count(*)::text AS n FROM txs WHERE canonical GROUP BY type_id ORDER BY type_id`,
    );
    const keptCounts = await api.db.raw(
      `SELECT type_id, tx_count::text AS n FROM chain_tx_counts WHERE tx_count <> 0 ORDER BY type_id`,
    );
    expect(keptCounts.rows).toEqual(counts.rows);
    // Migration 080's definition of the transaction list's positions.
    const positions = await api.db.raw(
      `SELECT g.type_id, g.block_height, (sum(g.n) OVER (PARTITION BY g.type_id ORDER BY g.block_height) - g.n)::text AS before,
              g.n::int AS n
       FROM (SELECT coalesce(type_id, '') AS type_id, block_height, count(*) AS n FROM txs WHERE canonical
             GROUP BY GROUPING SETS ((block_height, type_id), (block_height))) g
       ORDER BY g.type_id, g.block_height`,
    );
    const keptPositions = await api.db.raw(
      `SELECT type_id, block_height, txs_before::text AS before, tx_count AS n FROM chain_tx_positions ORDER BY type_id, block_height`,
    );
    expect(keptPositions.rows).toEqual(positions.rows);
  });

  it('answers malformed input with a 400 naming the parameter', async () => {
    for (const [path, name] of [
      ['/extended/v2/burn-blocks?limit=31', 'limit'],
      ['/extended/v2/burn-blocks/0x12', 'height_or_hash'],
      ['/extended/v2/burn-blocks/1/blocks?offset=-1', 'offset'],
      ['/extended/v2/blocks/by-block-time/-5', 'timestamp'],
      ['/extended/v2/blocks/nope/transactions', 'height_or_hash'],
      ['/extended/v2/blocks/1/transactions?limit=51', 'limit'],
    ] as const) {
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(400));
      expect(res.body.message).toContain(name);
    }
  });
});

describe('GET /extended/v2/blocks/average-times', () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi(testInfra().databaseUrl);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('is 0 for every window before any block', async () => {
    const res = await api.get('/extended/v2/blocks/average-times');
    expect(res.body).toEqual({ last_1h: 0, last_24h: 0, last_7d: 0, last_30d: 0 });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('averages the gaps between consecutive blocks whose time lies in each window', async () => {
    const now = Math.floor(Date.now() / 1000);
    // Heights 1..8, times: 40 days ago, 20 days ago, 3 days ago, 2 days ago, 5 h ago, 30 min, 20 min, 10 min ago.
    const ages = [40 * 86400, 20 * 86400, 3 * 86400, 2 * 86400, 5 * 3600, 1800, 1200, 600];
    const blocks = ages.map((age, i) =>
      new BlockRowBuilder()
        .height(i + 1)
        .nakamoto({ blockTime: now - age, tenureHeight: i + 1 })
        .build(),
    );
    await insertBlocks(api.db, blocks);
    await setChainTip(api.db, blocks[blocks.length - 1]!, blocks.length);
    const gaps = (from: number) => {
      const times = ages.map((a) => now - a);
      const d: number[] = [];
      for (let i = Math.max(from, 1); i < times.length; i++) d.push(times[i]! - times[i - 1]!);
      return d.reduce((a, b) => a + b, 0) / d.length;
    };
    const res = await api.get('/extended/v2/blocks/average-times');
    expect(res.status).toBe(200);
    // The windows hold, in order: the last three blocks, five, six, seven (their gaps reach back to the block before).
    expect(res.body.last_1h).toBeCloseTo(gaps(5), 6);
    expect(res.body.last_24h).toBeCloseTo(gaps(4), 6);
    expect(res.body.last_7d).toBeCloseTo(gaps(2), 6);
    expect(res.body.last_30d).toBeCloseTo(gaps(1), 6);
    const raw = await request(api.server).get('/extended/v2/blocks/average-times');
    expect(raw.status).toBe(200);
  });
});
