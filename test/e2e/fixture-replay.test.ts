import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayEvents } from '../../scripts/lib/replay-events';
import { EXPECTED_TIPS, loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

const FILES = Object.keys(EXPECTED_TIPS);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked field by field
async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

describe.each(['kafka', 'postgres'] as const)('replaying the recorded node events over the %s bus', (bus) => {
  for (const file of FILES) {
    describe(file, () => {
      let sys: TestSystem;
      beforeAll(async () => {
        sys = await startSystem(bus);
        await replayEvents(loadFixture(file), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
        await sys.waitForCaughtUp();
      });
      afterAll(async () => {
        await sys?.stop();
      });

      it('reaches the canonical tip of the fixtures README, read through the gateway', async () => {
        const expected = EXPECTED_TIPS[file]!;
        const status = await getJson(`${sys.gatewayUrl}/extended`);
        expect(status.status).toBe(200);
        expect(status.body.chain_tip).toMatchObject({ block_height: expected.height, index_block_hash: expected.indexBlockHash });
        const block = await getJson(`${sys.gatewayUrl}/extended/v2/blocks/${expected.height}`);
        expect(block.status).toBe(200);
        expect(block.body).toMatchObject({ height: expected.height, index_block_hash: expected.indexBlockHash, canonical: true });
      });

      it('dead-letters nothing', async () => {
        const dead = await sys.db('dead_letters').select('path', 'reason');
        expect(dead).toEqual([]);
      });
    });
  }
});
