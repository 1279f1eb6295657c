import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { stacksEventHandler } from '../src/stacks/stacks-event-handler';

/**
 * The kept list texts of `tx_list_json` (migration 095, ADR 0035) when blocks arrive out of order: the epoch-3 blocks
 * applied newest first by the indexer's own handler (each block is the tip or fills the gap under its canonical child,
 * its parent unknown when it is written; calls come before the boot contracts' deploys) end with the same texts as
 * when they arrive in order — the texts the api renders, which the api's tests hold on the in-order replay.
 */

const FIXTURE = join(import.meta.dirname, '../../../test/fixtures/stacks-node-events/epoch-3-transition.tsv');

function fixtureBlocks(): Array<{ height: number; body: unknown }> {
  return readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l.split('\t')[2] === '/new_block')
    .map((l) => {
      const body = JSON.parse(l.split('\t').slice(3).join('\t')) as { block_height: number };
      return { height: body.block_height, body };
    })
    .sort((a, b) => a.height - b.height);
}

async function applied(blocks: Array<{ body: unknown }>, label: string): Promise<Knex> {
  const db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, label), maxConnections: 2 });
  await migrateLatest(db);
  const handler = stacksEventHandler(createLogger('indexer', 'silent'));
  for (const { body } of blocks) {
    await db.transaction(async (trx) => {
      handler.onBatchStart();
      await handler.handle(trx, { path: '/new_block', received_at: '2024-01-01T00:00:00.000Z', body });
      await handler.beforeCommit(trx);
    });
  }
  return db;
}

async function texts(db: Knex): Promise<Map<string, string>> {
  const { rows } = (await db.raw(
    `SELECT t.tx_id, t.index_block_hash, j.json FROM txs t
     LEFT JOIN tx_list_json j USING (tx_id, index_block_hash) WHERE t.canonical`,
  )) as { rows: Array<{ tx_id: string; index_block_hash: string; json: string | null }> };
  return new Map(rows.map((r) => [`${r.tx_id}@${r.index_block_hash}`, r.json ?? 'missing']));
}

describe('tx_list_json when blocks arrive out of order', () => {
  let inOrder: Knex;
  let reversed: Knex;

  beforeAll(async () => {
    const blocks = fixtureBlocks();
    inOrder = await applied(blocks, 'txjson_in_order');
    reversed = await applied([...blocks].reverse(), 'txjson_reversed');
  }, 120_000);

  afterAll(async () => {
    await inOrder?.destroy();
    await reversed?.destroy();
  });

  it('ends with the texts of the in-order application for every transaction both make canonical', async () => {
    const expected = await texts(inOrder);
    const got = await texts(reversed);
    // Arrival order decides ties between forks (first seen), so the two canonical sets can differ at the edges; the
    // texts of the transactions both hold must not.
    const both = [...got.keys()].filter((k) => expected.has(k));
    expect(both.length).toBeGreaterThan(expected.size * 0.8);
    expect(new Map(both.map((k) => [k, got.get(k)]))).toEqual(new Map(both.map((k) => [k, expected.get(k)])));
    // The reversed application had to render texts again: each block's parent came after it, and calls before the
    // contracts they call were deployed.
    const rendered = [...expected.values()].map(
      (t) => JSON.parse(t) as { parent_burn_block_time: number; contract_call?: { function_signature: string } },
    );
    expect(rendered.filter((t) => t.parent_burn_block_time > 0).length).toBeGreaterThan(0);
    expect(rendered.filter((t) => (t.contract_call?.function_signature ?? '') !== '').length).toBeGreaterThan(0);
  });
});
