import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

describe('a message the indexer cannot apply', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer']);
  });
  afterAll(() => sys?.stop());

  it('is dead-lettered with its reason and counted, and the stream goes on', async () => {
    const events = loadFixture('mocknet.tsv').filter((e) => e.path === '/new_block');
    const third = JSON.parse(events[2]!.body) as { transactions: Array<{ raw_tx: string }> };
    // Valid hex for the observer, but not a Stacks transaction: only the indexer can tell.
    third.transactions[0]!.raw_tx = '0xdeadbeef';
    const poisoned = { ...events[2]!, body: JSON.stringify(third) };
    await replayEvents([events[0]!, events[1]!, poisoned, ...events.slice(2)], {
      observerUrl: sys.observerUrl,
      maxRetryMs: 30_000,
    });
    await sys.waitForCaughtUp();

    const dead = await sys.db('dead_letters').select('path', 'reason');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ path: '/new_block' });
    expect(dead[0]!.reason).toMatch(/DecodeError/);
    // The genuine block 3 came right after and the chain went on to the tip.
    expect(await sys.db('chain_tip').first()).toMatchObject({ block_height: 28 });
    expect(await sys.db('blocks').count({ n: '*' })).toEqual([{ n: '28' }]);
    // Nothing of the poisoned message was half-written.
    expect(await sys.db('txs').whereRaw("raw_tx = '\\xdeadbeef'::bytea").count({ n: '*' })).toEqual([{ n: '0' }]);
    const metrics = await (await fetch(`${sys.indexerUrl}/metrics`)).text();
    expect(metrics).toMatch(/indexer_dead_letters_total\{[^}]*path="\/new_block"[^}]*\} 1/);
    // What an operator alerts on, read from the database and the bus at scrape time.
    expect(metrics).toMatch(/^indexer_dead_letters_stored\{[^}]*topic="stacks\.node-events"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^indexer_lag_records\{[^}]*topic="stacks\.node-events"[^}]*\} 0$/m);
    expect(metrics).toMatch(/^indexer_chain_tip_height\{[^}]*chain="stacks"[^}]*\} 28$/m);
    expect(metrics).toMatch(/^indexer_parked_blocks\{[^}]*chain="stacks"[^}]*\} 0$/m);
  });

  it("answers the indexer's status in JSON, and unknown routes with a 404 JSON error", async () => {
    const status = await fetch(`${sys.indexerUrl}/status`);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ running: true, topics: { 'stacks.node-events': { lag: '0' } } });
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/status'],
    ] as const) {
      const res = await fetch(`${sys.indexerUrl}${path}`, { method });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.json()).toEqual({ error: 'not_found', message: `no route for ${method} ${path}` });
    }
  });
});
