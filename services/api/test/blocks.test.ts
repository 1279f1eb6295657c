import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import type { DbBlock } from '@bda/db';
import { BlockRowBuilder } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertBlocks, setChainTip } from './support/seed';

let api: ApiHarness;
/** Canonical heights 1..45; competing non-canonical blocks at 44 and 45; Nakamoto blocks from 41. */
let canonical: DbBlock[];
let orphans: DbBlock[];

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
  canonical = [];
  for (let h = 1; h <= 45; h++) {
    const b = new BlockRowBuilder().height(h);
    if (h >= 41) b.nakamoto({ blockTime: 1_800_000_000 + h, tenureHeight: h === 45 ? null : 30 + h });
    canonical.push(b.build());
  }
  orphans = [
    new BlockRowBuilder().height(44).forkTag('orphan').parentFork('main').canonical(false).build(),
    new BlockRowBuilder().height(45).forkTag('orphan').canonical(false).build(),
  ];
  await insertBlocks(api.db, [...canonical, ...orphans]);
  await setChainTip(api.db, canonical[44]!, 45);
});

afterAll(async () => {
  await api?.close();
});

const heights = (body: { results: Array<{ height: number }> }) => body.results.map((b) => b.height);

describe('GET /extended/v2/blocks', () => {
  it('lists the newest 20 canonical blocks by default', async () => {
    const res = await api.get('/extended/v2/blocks');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, total: 45 });
    expect(heights(res.body)).toEqual(Array.from({ length: 20 }, (_, i) => 45 - i));
  });

  it('never shows non-canonical blocks', async () => {
    const res = await api.get('/extended/v2/blocks?limit=5');
    expect(res.body.results.every((b: { canonical: boolean }) => b.canonical)).toBe(true);
    const hashes = res.body.results.map((b: { hash: string }) => b.hash);
    for (const o of orphans) expect(hashes).not.toContain(o.block_hash);
    expect(res.body.results[0].hash).toBe(canonical[44]!.block_hash);
  });

  it('pages by limit and offset down to the lowest block', async () => {
    const page = await api.get('/extended/v2/blocks?limit=10&offset=40');
    expect(page.body).toMatchObject({ limit: 10, offset: 40, total: 45 });
    expect(heights(page.body)).toEqual([5, 4, 3, 2, 1]);
    const last = await api.get('/extended/v2/blocks?limit=1&offset=44');
    expect(heights(last.body)).toEqual([1]);
  });

  it('returns an empty page past the end with the total', async () => {
    const res = await api.get('/extended/v2/blocks?offset=45');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      limit: 20,
      offset: 45,
      total: 45,
      next_cursor: null,
      prev_cursor: null,
      cursor: null,
      results: [],
    });
    const far = await api.get('/extended/v2/blocks?offset=2147483647');
    expect(far.body.results).toEqual([]);
  });

  describe('with cursors, as the reference API pages', () => {
    const hashAt = (h: number) => canonical[h - 1]!.index_block_hash;

    it("gives the first page's cursor, no newer page, and the older page's cursor", async () => {
      const res = await api.get('/extended/v2/blocks');
      expect(res.body).toMatchObject({ cursor: hashAt(45), next_cursor: null, prev_cursor: hashAt(25) });
    });

    it('starts a page at the cursor block, with the cursors of the pages either side', async () => {
      const res = await api.get(`/extended/v2/blocks?cursor=${hashAt(25)}`);
      expect(res.status).toBe(200);
      expect(heights(res.body)).toEqual(Array.from({ length: 20 }, (_, i) => 25 - i));
      expect(res.body).toMatchObject({
        limit: 20,
        offset: 0,
        total: 45,
        cursor: hashAt(25),
        next_cursor: hashAt(45),
        prev_cursor: hashAt(5),
      });
      const last = await api.get(`/extended/v2/blocks?cursor=${hashAt(5)}`);
      expect(heights(last.body)).toEqual([5, 4, 3, 2, 1]);
      expect(last.body).toMatchObject({ cursor: hashAt(5), next_cursor: hashAt(25), prev_cursor: null });
    });

    it('accepts the cursor without 0x and in upper case', async () => {
      const res = await api.get(`/extended/v2/blocks?limit=3&cursor=${hashAt(10).slice(2).toUpperCase()}`);
      expect(heights(res.body)).toEqual([10, 9, 8]);
    });

    it('moves by offset from the cursor, negative towards the tip', async () => {
      const up = await api.get(`/extended/v2/blocks?limit=5&cursor=${hashAt(25)}&offset=-10`);
      expect(heights(up.body)).toEqual([35, 34, 33, 32, 31]);
      expect(up.body).toMatchObject({ offset: -10, cursor: hashAt(35), next_cursor: hashAt(40), prev_cursor: hashAt(30) });
      const down = await api.get(`/extended/v2/blocks?limit=5&cursor=${hashAt(25)}&offset=22`);
      expect(heights(down.body)).toEqual([3, 2, 1]);
      expect(down.body.prev_cursor).toBeNull();
    });

    it('visits every canonical block once when following prev_cursor from the tip', async () => {
      const seen: number[] = [];
      let path = '/extended/v2/blocks?limit=7';
      for (let pages = 0; pages < 20; pages++) {
        const res = await api.get(path);
        expect(res.status).toBe(200);
        seen.push(...heights(res.body));
        if (res.body.prev_cursor === null) break;
        path = `/extended/v2/blocks?limit=7&cursor=${res.body.prev_cursor}`;
      }
      expect(seen).toEqual(Array.from({ length: 45 }, (_, i) => 45 - i));
    });

    it('responds with 404 naming the cursor when no canonical block has it', async () => {
      for (const cursor of [orphans[0]!.index_block_hash, `0x${'e'.repeat(64)}`]) {
        const res = await api.get(`/extended/v2/blocks?cursor=${cursor}`);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error: 'not_found' });
        expect(res.body.message).toContain(`cursor: no canonical block with index block hash ${cursor}`);
      }
    });

    it('responds with 404 naming the offset when it leaves the canonical chain from the cursor', async () => {
      for (const offset of ['-21', '25']) {
        const res = await api.get(`/extended/v2/blocks?cursor=${hashAt(25)}&offset=${offset}`);
        expect(res.status).toBe(404);
        expect(res.body.message).toMatch(/^offset: .* outside the canonical chain \(heights 1 to 45\)/);
      }
    });

    it.each([
      ['cursor=xyz', 'cursor'],
      [`cursor=0x${'a'.repeat(63)}`, 'cursor'],
      [`cursor=${'a'.repeat(64)}&cursor=${'b'.repeat(64)}`, 'cursor'],
      [`cursor=${'a'.repeat(64)}&offset=-301`, 'offset'],
      [`cursor=${'a'.repeat(64)}&offset=301`, 'offset'],
      [`cursor=${'a'.repeat(64)}&offset=1.5`, 'offset'],
    ])('responds with 400 naming the parameter for %s', async (query, name) => {
      const res = await api.get(`/extended/v2/blocks?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(name);
    });
  });

  it('gives the default page for limit=0, as the reference API does', async () => {
    const res = await api.get('/extended/v2/blocks?limit=0');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, total: 45 });
    expect(heights(res.body)).toEqual(Array.from({ length: 20 }, (_, i) => 45 - i));
  });

  it('answers a negative offset without a cursor with the empty page above the tip', async () => {
    const res = await api.get('/extended/v2/blocks?offset=-5');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: -5, total: 45, cursor: null, results: [] });
  });

  it('accepts the maximum page size and no more', async () => {
    expect((await api.get('/extended/v2/blocks?limit=30')).body.results).toHaveLength(30);
    const res = await api.get('/extended/v2/blocks?limit=31');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('limit');
  });

  it.each([
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=999', 'limit'],
    ['limit=', 'limit'],
    ['limit=1e1', 'limit'],
    ['limit=%201', 'limit'],
    ['limit=2&limit=3', 'limit'],
    ['offset=-301', 'offset'],
    ['offset=x', 'offset'],
    ['offset=1.0', 'offset'],
    ['offset=2147483648', 'offset'],
    ['offset=1&offset=2', 'offset'],
  ])('responds with 400 naming the parameter for %s', async (query, name) => {
    const res = await api.get(`/extended/v2/blocks?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.message).toContain(name);
  });

  it('maps block fields like the reference API', async () => {
    const res = await api.get('/extended/v2/blocks?limit=30&offset=0');
    const byHeight = new Map(res.body.results.map((b: { height: number }) => [b.height, b]));
    const b45 = canonical[44]!;
    expect(byHeight.get(45)).toEqual({
      canonical: true,
      height: 45,
      hash: b45.block_hash,
      block_time: 1_800_000_045,
      block_time_iso: new Date(1_800_000_045 * 1000).toISOString(),
      // Nakamoto block without a recorded tenure height: -1, as the reference does.
      tenure_height: -1,
      index_block_hash: b45.index_block_hash,
      parent_block_hash: b45.parent_block_hash,
      parent_index_block_hash: b45.parent_index_block_hash,
      burn_block_time: Number(b45.burn_block_time),
      burn_block_time_iso: new Date(Number(b45.burn_block_time) * 1000).toISOString(),
      burn_block_hash: b45.burn_block_hash,
      burn_block_height: b45.burn_block_height,
      miner_txid: b45.miner_txid,
      tx_count: 1,
      execution_cost_read_count: 45,
      execution_cost_read_length: 450,
      execution_cost_runtime: 4500,
      execution_cost_write_count: 90,
      execution_cost_write_length: 900,
    });
    expect(byHeight.get(44)).toMatchObject({ tenure_height: 74 });
    // Stacks 2.x block: block_time falls back to the burn block time, tenure height to the height.
    const b20 = canonical[19]!;
    expect(byHeight.get(20)).toMatchObject({ block_time: Number(b20.burn_block_time), tenure_height: 20 });
  });

  /** The reference's `NakamotoBlock` of a seeded block, in its key order, as JavaScript writes its numbers. */
  const expectedBlock = (b: DbBlock) => {
    const own = Number(b.block_time ?? 0);
    const time = own > 0 ? own : Number(b.burn_block_time);
    const iso = (t: number) => (t > 0 ? new Date(t * 1000).toISOString() : '');
    return {
      canonical: b.canonical,
      height: b.block_height,
      hash: b.block_hash,
      block_time: time,
      block_time_iso: iso(time),
      tenure_height: b.tenure_height ?? (b.signer_bitvec ? -1 : b.block_height),
      index_block_hash: b.index_block_hash,
      parent_block_hash: b.parent_block_hash,
      parent_index_block_hash: b.parent_index_block_hash,
      burn_block_time: Number(b.burn_block_time),
      burn_block_time_iso: iso(Number(b.burn_block_time)),
      burn_block_hash: b.burn_block_hash,
      burn_block_height: b.burn_block_height,
      miner_txid: b.miner_txid ?? '',
      tx_count: b.tx_count,
      execution_cost_read_count: Number(b.execution_cost_read_count),
      execution_cost_read_length: Number(b.execution_cost_read_length),
      execution_cost_runtime: Number(b.execution_cost_runtime),
      execution_cost_write_count: Number(b.execution_cost_write_count),
      execution_cost_write_length: Number(b.execution_cost_write_length),
    };
  };

  it('writes each page byte for byte as JSON.stringify of the reference shape, the kept texts spliced in', async () => {
    const hashAt = (h: number) => canonical[h - 1]!.index_block_hash;
    for (const [query, top, n, next, prev] of [
      ['limit=30', 45, 30, null, 15],
      ['limit=20&offset=20', 25, 20, 45, 5],
      ['limit=10&offset=40', 5, 5, 15, null],
    ] as const) {
      const res = await api.get(`/extended/v2/blocks?${query}`);
      const [limit, offset] = [Number(/limit=(\d+)/.exec(query)![1]), Number(/offset=(\d+)/.exec(query)?.[1] ?? 0)];
      const want = {
        limit,
        offset,
        total: 45,
        next_cursor: next === null ? null : hashAt(next),
        prev_cursor: prev === null ? null : hashAt(prev),
        cursor: hashAt(top),
        results: canonical
          .slice(top - n, top)
          .reverse()
          .map(expectedBlock),
      };
      expectMessage(query, () => expect(res.text).toBe(JSON.stringify(want)));
    }
  });

  it('answers a page holding a block the kept text cannot write (a cost beyond 2^53, the year 10000) from its columns', async () => {
    // JavaScript's numbers and Date write these otherwise than PostgreSQL: migration 097 keeps no text for them.
    const b = canonical[44]!;
    await api.db('blocks').where({ index_block_hash: b.index_block_hash }).update({
      execution_cost_runtime: '9007199254740993',
      block_time: '253402300800',
    });
    try {
      const kept = await api.db('blocks').where({ index_block_hash: b.index_block_hash }).first('v2_json');
      expect(kept).toEqual({ v2_json: null });
      const res = await api.get('/extended/v2/blocks?limit=2');
      const top = {
        ...expectedBlock(b),
        block_time: 253_402_300_800,
        block_time_iso: '+010000-01-01T00:00:00.000Z',
        execution_cost_runtime: 9007199254740992,
      };
      expect(res.text).toBe(
        JSON.stringify({
          limit: 2,
          offset: 0,
          total: 45,
          next_cursor: null,
          prev_cursor: canonical[42]!.index_block_hash,
          cursor: b.index_block_hash,
          results: [top, expectedBlock(canonical[43]!)],
        }),
      );
    } finally {
      await api.db('blocks').where({ index_block_hash: b.index_block_hash }).update({
        execution_cost_runtime: b.execution_cost_runtime,
        block_time: b.block_time,
      });
    }
  });
});

describe('GET /extended/v2/blocks/{height_or_hash}', () => {
  it('finds a block by height', async () => {
    const res = await api.get('/extended/v2/blocks/7');
    expect(res.status).toBe(200);
    expect(res.body.hash).toBe(canonical[6]!.block_hash);
    expect(res.headers.get('etag')).toBe(`W/"${canonical[44]!.index_block_hash}"`);
  });

  it('finds a block by block hash and by index block hash, with or without 0x, in any case', async () => {
    const b = canonical[11]!;
    for (const id of [
      b.block_hash,
      b.block_hash.slice(2),
      b.block_hash.toUpperCase().replace('0X', '0x'),
      `0X${b.block_hash.slice(2).toUpperCase()}`,
      b.index_block_hash,
      b.index_block_hash.slice(2).toUpperCase(),
    ]) {
      const res = await api.get(`/extended/v2/blocks/${id}`);
      expectMessage(id, () => expect(res.status).toBe(200));
      expect(res.body.index_block_hash).toBe(b.index_block_hash);
    }
  });

  it('finds the chain tip as latest', async () => {
    const res = await api.get('/extended/v2/blocks/latest');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ height: 45, index_block_hash: canonical[44]!.index_block_hash, canonical: true });
    expect(res.headers.get('etag')).toBe(`W/"${canonical[44]!.index_block_hash}"`);
  });

  it('responds with 400 naming the parameter for a misspelt latest', async () => {
    const res = await api.get('/extended/v2/blocks/Latest');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^height_or_hash: must be `latest`, a block height/);
  });

  it('responds with 404 when the block is unknown', async () => {
    const res = await api.get('/extended/v2/blocks/46');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'height_or_hash: no canonical block at height 46' });
    const byHash = await api.get(`/extended/v2/blocks/0x${'ee'.repeat(32)}`);
    expect(byHash.status).toBe(404);
    expect(byHash.body.message).toContain('height_or_hash');
  });

  it('responds with 404 for a non-canonical block, by hash or index block hash', async () => {
    for (const id of [orphans[0]!.block_hash, orphans[1]!.index_block_hash]) {
      const res = await api.get(`/extended/v2/blocks/${id}`);
      expect(res.status).toBe(404);
    }
  });

  it.each([
    ['abc'],
    ['-1'],
    ['1.5'],
    ['0x1234'],
    [`0x${'g'.repeat(64)}`],
    [`${'a'.repeat(63)}`],
    [`${'a'.repeat(65)}`],
    ['2147483648'],
    ['%20'],
  ])('responds with 400 naming height_or_hash for %s', async (param) => {
    const res = await api.get(`/extended/v2/blocks/${param}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^height_or_hash: /);
  });

  it('answers 304 to a matching If-None-Match until the tip moves', async () => {
    const first = await api.get('/extended/v2/blocks/3');
    const etag = first.headers.get('etag')!;
    const again = await api.get('/extended/v2/blocks/3', { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });
});
