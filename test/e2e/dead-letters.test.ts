import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  });
});
