/**
 * `/extended/v2/block-tenures/{tenure_height}/blocks` over hand-written Nakamoto blocks (the recorded fixtures predate
 * tenure heights in the node's events): three tenures of 10, 15 and 5 blocks, and a competing block of the middle
 * tenure that is not canonical.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import type { DbBlock } from '@bda/db';
import { BlockRowBuilder } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertBlocks, setChainTip } from './support/seed';

let api: ApiHarness;
const blocks: DbBlock[] = [];
/** Tenure of each height: 1–10 tenure 5, 11–25 tenure 6, 26–30 tenure 7. */
const tenureOf = (h: number) => (h <= 10 ? 5 : h <= 25 ? 6 : 7);

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
  for (let h = 1; h <= 30; h++) {
    blocks.push(
      new BlockRowBuilder()
        .height(h)
        .nakamoto({ blockTime: 1_800_000_000 + h, tenureHeight: tenureOf(h) })
        .build(),
    );
  }
  const orphan = new BlockRowBuilder()
    .height(20)
    .forkTag('orphan')
    .nakamoto({ blockTime: 1, tenureHeight: 6 })
    .canonical(false)
    .build();
  await insertBlocks(api.db, [...blocks, orphan]);
  await setChainTip(api.db, blocks[29]!, 30);
});

afterAll(async () => {
  await api?.close();
});

const heights = (body: { results: Array<{ height: number }> }) => body.results.map((b) => b.height);
const hashAt = (h: number) => blocks[h - 1]!.index_block_hash;

describe('GET /extended/v2/block-tenures/{tenure_height}/blocks', () => {
  it("lists a tenure's canonical blocks highest first, with their number as total and the cursors either side", async () => {
    const res = await api.get('/extended/v2/block-tenures/6/blocks?limit=4');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      limit: 4,
      offset: 0,
      total: 15,
      cursor: hashAt(25),
      next_cursor: null,
      prev_cursor: hashAt(21),
    });
    expect(heights(res.body)).toEqual([25, 24, 23, 22]);
    expect(res.body.results.every((b: { tenure_height: number }) => b.tenure_height === 6)).toBe(true);
  });

  it('visits every block of the tenure once following prev_cursor, and comes back with next_cursor', async () => {
    const seen: number[] = [];
    let path = '/extended/v2/block-tenures/6/blocks?limit=4';
    for (;;) {
      const res = await api.get(path);
      seen.push(...heights(res.body));
      if (!res.body.prev_cursor) break;
      path = `/extended/v2/block-tenures/6/blocks?limit=4&cursor=${res.body.prev_cursor}`;
    }
    expect(seen).toEqual(Array.from({ length: 15 }, (_, i) => 25 - i));
    const back = await api.get(`/extended/v2/block-tenures/6/blocks?limit=4&cursor=${hashAt(17)}`);
    expect(heights(back.body)).toEqual([17, 16, 15, 14]);
    expect(back.body.next_cursor).toBe(hashAt(21));
  });

  it('pages by offset from the top or from a cursor, negative towards the top', async () => {
    expect(heights((await api.get('/extended/v2/block-tenures/5/blocks?limit=3&offset=8')).body)).toEqual([2, 1]);
    expect(heights((await api.get(`/extended/v2/block-tenures/6/blocks?limit=2&cursor=${hashAt(15)}&offset=-3`)).body)).toEqual([
      18, 17,
    ]);
    expect(heights((await api.get('/extended/v2/block-tenures/7/blocks?offset=5')).body)).toEqual([]);
  });

  it('is an empty page for a tenure without canonical blocks, and a 404 for a cursor outside the tenure', async () => {
    const none = await api.get('/extended/v2/block-tenures/8/blocks');
    expect(none.body).toEqual({
      limit: 20,
      offset: 0,
      total: 0,
      next_cursor: null,
      prev_cursor: null,
      cursor: null,
      results: [],
    });
    const outside = await api.get(`/extended/v2/block-tenures/6/blocks?cursor=${hashAt(3)}`);
    expect(outside.status).toBe(404);
    expect(outside.body.message).toContain('cursor');
  });

  it('answers malformed input with a 400 naming the parameter', async () => {
    for (const [path, name] of [
      ['/extended/v2/block-tenures/-1/blocks', 'tenure_height'],
      ['/extended/v2/block-tenures/x/blocks', 'tenure_height'],
      ['/extended/v2/block-tenures/1/blocks?limit=31', 'limit'],
      ['/extended/v2/block-tenures/1/blocks?cursor=0x12', 'cursor'],
    ] as const) {
      const res = await api.get(path);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(name);
    }
  });
});
