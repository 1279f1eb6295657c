import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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
        // The PoX unlock heights the node sent with the tip block (epoch-3's blocks carry them; the others none).
        const tipBody = loadFixture(file)
          .filter((e) => e.path === '/new_block')
          .map((e) => JSON.parse(e.body) as Record<string, unknown>)
          .find((b) => b['index_block_hash'] === expected.indexBlockHash)!;
        for (const v of [1, 2, 3]) {
          expect(status.body[`pox_v${v}_unlock_height`]).toBe(tipBody[`pox_v${v}_unlock_height`] ?? null);
        }
        const block = await getJson(`${sys.gatewayUrl}/extended/v2/blocks/${expected.height}`);
        expect(block.status).toBe(200);
        expect(block.body).toMatchObject({ height: expected.height, index_block_hash: expected.indexBlockHash, canonical: true });
      });

      it('keeps the per-address history equal to its definition over the canonical chain, totals included', async () => {
        const definition = `SELECT p.address, tx.block_height, coalesce(tx.microblock_sequence, 2147483647) AS microblock_sequence,
                                  tx.tx_index, tx.tx_id, tx.index_block_hash
             FROM txs tx,
                  LATERAL (VALUES (tx.sender_address), (tx.sponsor_address), (tx.payload->>'recipient_address'), (tx.contract_id)) p(address)
             WHERE tx.canonical AND p.address IS NOT NULL
             UNION
             SELECT p.address, tx.block_height, coalesce(tx.microblock_sequence, 2147483647), tx.tx_index, tx.tx_id, tx.index_block_hash
             FROM events e JOIN txs tx ON tx.tx_id = e.tx_id AND tx.index_block_hash = e.index_block_hash,
                  LATERAL (VALUES (e.sender), (e.recipient)) p(address)
             WHERE tx.canonical AND e.committed AND tx.status = 'success' AND p.address IS NOT NULL
               AND e.type IN ('stx_transfer_event', 'stx_mint_event', 'stx_burn_event')`;
        const stored = 'SELECT address, block_height, microblock_sequence, tx_index, tx_id, index_block_hash FROM address_txs';
        const missing = await sys.db.raw(`(${definition}) EXCEPT (${stored})`);
        const extra = await sys.db.raw(`(${stored}) EXCEPT (${definition})`);
        expect({ missing: missing.rows, extra: extra.rows }).toEqual({ missing: [], extra: [] });
        expect(Number((await sys.db.raw(`SELECT count(*) AS n FROM (${definition}) d`)).rows[0].n)).toBeGreaterThan(0);
        const totals = await sys.db.raw(
          `SELECT coalesce(c.address, h.address) AS address, c.tx_count, h.n
           FROM (SELECT * FROM address_tx_counts WHERE tx_count <> 0) c
           FULL JOIN (SELECT address, count(*)::int AS n FROM address_txs GROUP BY address) h ON h.address = c.address
           WHERE c.tx_count IS DISTINCT FROM h.n`,
        );
        expect(totals.rows).toEqual([]);
      });

      it('dead-letters nothing', async () => {
        const dead = await sys.db('dead_letters').select('path', 'reason');
        expect(dead).toEqual([]);
      });
    });
  }
});
