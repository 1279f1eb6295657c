import { afterEach, describe, expect, it } from '@jest/globals';
import { loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

/** Bounded staleness (ADR 0015): the observer holds its answers while the indexer trails the node. */
describe('bounded staleness', () => {
  let sys: TestSystem | undefined;
  afterEach(async () => {
    const indexer = sys?.procs.get('indexer');
    if (indexer?.child.exitCode === null) indexer.child.kill('SIGCONT');
    await sys?.stop();
    sys = undefined;
  });

  const events = loadFixture('mocknet.tsv');
  const post = async (path: string, body: string) => {
    const res = await fetch(`${sys!.observerUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  };
  const tipHeight = async () => {
    const body = (await (await fetch(`${sys!.apiUrl}/extended`)).json()) as { chain_tip: { block_height: number } | null };
    return body.chain_tip?.block_height ?? null;
  };
  const skipped = async () => {
    const text = await (await fetch(`${sys!.observerUrl}/metrics`)).text();
    return Object.fromEntries(
      [...text.matchAll(/^observer_pace_skipped_total\{[^}]*reason="(\w+)"[^}]*\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
    );
  };

  it.each(['kafka', 'postgres'] as const)(
    'with a budget of zero, shows each block through the api by the time its POST is answered (%s bus)',
    async (bus) => {
      sys = await startSystem(bus, ['indexer', 'observer', 'api'], {
        OBSERVER_PACE_STALENESS_MS: '0',
        OBSERVER_PACE_MAX_HOLD_MS: '5000',
      });
      let blocks = 0;
      for (const e of events) {
        expect(await post(e.path, e.body)).toBe(200);
        if (e.path !== '/new_block') continue;
        blocks++;
        // Read right after the answer, without waiting or polling.
        expect(await tipHeight()).toBe((JSON.parse(e.body) as { block_height: number }).block_height);
      }
      expect(blocks).toBeGreaterThan(20);
      expect(await skipped()).toEqual({});
    },
  );

  it('answers every POST while the indexer is frozen, stops waiting for it, and loses nothing', async () => {
    sys = await startSystem('kafka', ['indexer', 'observer', 'api'], {
      OBSERVER_PACE_STALENESS_MS: '100',
      OBSERVER_PACE_MAX_HOLD_MS: '300',
    });
    const [first, ...rest] = events;
    expect(await post(first!.path, first!.body)).toBe(200);
    await sys.waitForCaughtUp();
    // Frozen, not dead: its port still takes connections, and nothing answers on them.
    sys.procs.get('indexer')!.child.kill('SIGSTOP');
    const [second, ...others] = rest;
    expect(await post(second!.path, second!.body)).toBe(200);
    // The api is now further behind than the budget: the next POST is held and asks the indexer.
    await new Promise((r) => setTimeout(r, 200));
    for (const e of others) expect(await post(e.path, e.body)).toBe(200);
    const counts = await skipped();
    // The first hold finds no answer; then it stops asking for a while and every other POST goes straight through.
    expect(counts.unreachable).toBe(1);
    expect(counts.quiet).toBeGreaterThan(20);
    sys.procs.get('indexer')!.child.kill('SIGCONT');
    await sys.waitForCaughtUp();
    const last = events.filter((e) => e.path === '/new_block').at(-1)!;
    expect(await tipHeight()).toBe((JSON.parse(last.body) as { block_height: number }).block_height);
  });
});
