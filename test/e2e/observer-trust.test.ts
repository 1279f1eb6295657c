import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeEnvelope } from '@bda/bus';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

const blocks = loadFixture('mocknet.tsv').filter((e) => e.path === '/new_block');
const parsed = (e: { body: string }) => JSON.parse(e.body) as { block_height: number; index_block_hash: string };
const byHeight = new Map(blocks.map((b) => [parsed(b).block_height, b]));
const at = (...heights: number[]) => heights.map((h) => byHeight.get(h)!);

async function status(sys: TestSystem) {
  return (await (await fetch(`${sys.indexerUrl}/status`)).json()) as { topics: Record<string, { head: string }> };
}

describe('a block posted from an address outside OBSERVER_ALLOWED_CIDRS', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // The nodes are on 192.0.2.0/24; this test (127.0.0.1) stands for anyone else who reaches the observer.
    sys = await startSystem('postgres', ['indexer', 'observer'], { OBSERVER_ALLOWED_CIDRS: '192.0.2.0/24' });
  });
  afterAll(() => sys?.stop());

  it('is refused with 403 JSON, and never reaches the bus or the chain', async () => {
    const res = await fetch(`${sys.observerUrl}/new_block`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: blocks[0]!.body,
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'forbidden', message: expect.stringContaining('OBSERVER_ALLOWED_CIDRS') });
    // Nothing was published: the bus is still empty, and the indexer has no block.
    expect((await status(sys)).topics['stacks.node-events']!.head).toBe('-1');
    expect(await sys.db('blocks').count({ n: '*' })).toEqual([{ n: '0' }]);
  });
});

describe('the parked set past its count bound', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer'], { INDEXER_PARKED_MAX_BLOCKS: '2' });
  });
  afterAll(() => sys?.stop());

  it('drops the oldest parked block to the dead letters, counted, as an envelope that can be replayed', async () => {
    // 1..3, then 5, 6, 7 (their ancestor 4 is missing): three parked, one over the bound.
    await replayEvents(at(1, 2, 3, 5, 6, 7), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await sys.waitForCaughtUp();
    expect((await sys.db('chain_tip').first()).block_height).toBe(3);
    expect((await sys.db('parked_blocks').orderBy('block_height').pluck('block_height')).map(Number)).toEqual([6, 7]);
    const dead = await sys.db('dead_letters').select('topic', 'position', 'path', 'reason', 'value');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ topic: 'stacks.node-events', position: '-1', path: '/new_block' });
    expect(dead[0]!.reason).toContain('more than 2 blocks parked');
    expect(dead[0]!.reason).toContain(parsed(byHeight.get(5)!).index_block_hash);
    const envelope = decodeEnvelope<{ block_height: number; index_block_hash: string }>(dead[0]!.value as Buffer);
    expect(envelope.path).toBe('/new_block');
    expect(envelope.body).toMatchObject({ block_height: 5, index_block_hash: parsed(byHeight.get(5)!).index_block_hash });
    const metrics = await (await fetch(`${sys.indexerUrl}/metrics`)).text();
    expect(metrics).toMatch(/^indexer_parked_dropped_stored\{[^}]*chain="stacks"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^indexer_parked_blocks\{[^}]*chain="stacks"[^}]*\} 2$/m);

    // Once 4 is there, the dropped 5 posted again from its dead letter completes the chain up to 7.
    await replayEvents(at(4), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await replayEvents([{ id: 'x', receivedAt: envelope.received_at, path: '/new_block', body: JSON.stringify(envelope.body) }], {
      observerUrl: sys.observerUrl,
      maxRetryMs: 30_000,
    });
    await sys.waitForCaughtUp();
    expect((await sys.db('chain_tip').first()).block_height).toBe(7);
    expect(await sys.db('parked_blocks').count({ n: '*' })).toEqual([{ n: '0' }]);
  });
});

describe('the parked set past its byte bound', () => {
  let sys: TestSystem;
  // Room for two of these blocks (about 1.8 KB each) and half of a third.
  const bound =
    Buffer.byteLength(byHeight.get(6)!.body) +
    Buffer.byteLength(byHeight.get(7)!.body) +
    Buffer.byteLength(byHeight.get(5)!.body) / 2;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer'], { INDEXER_PARKED_MAX_BYTES: String(Math.floor(bound)) });
  });
  afterAll(() => sys?.stop());

  it('drops the oldest parked blocks until the rest fit', async () => {
    await replayEvents(at(1, 2, 3, 5, 6, 7), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await sys.waitForCaughtUp();
    expect((await sys.db('parked_blocks').orderBy('block_height').pluck('block_height')).map(Number)).toEqual([6, 7]);
    const dead = await sys.db('dead_letters').select('position', 'reason');
    expect(dead).toEqual([{ position: '-1', reason: expect.stringMatching(/more than \d+ bytes parked/) }]);
  });
});
