import type { Knex } from 'knex';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';
import type { TopicStatus } from '../src/indexer';
import { registerIndexerGauges } from '../src/indexer-gauges';

const logger = createLogger('gauges-test', 'silent');

/** The value of one sample in Prometheus text, or undefined when the scrape has none. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the indexer gauges on /metrics', () => {
  let db: Knex;
  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'gauges'), maxConnections: 4 });
    await migrateLatest(db);
    const movedAt = new Date('2026-11-24T01:02:03Z');
    await db('consumer_positions').insert([
      { topic: 'stacks.node-events', position: '41', updated_at: movedAt },
      { topic: 'bitcoin.blocks', position: '7', updated_at: movedAt },
    ]);
    await db('dead_letters').insert([
      { topic: 'stacks.node-events', position: '3', path: '/new_block', reason: 'x', value: Buffer.from('{}') },
      { topic: 'stacks.node-events', position: '9', path: '/new_block', reason: 'y', value: Buffer.from('{}') },
    ]);
    await db('parked_blocks').insert(
      [1, 2, 3].map((i) => ({
        index_block_hash: `0x${String(i).repeat(64)}`,
        parent_index_block_hash: `0x${'f'.repeat(64)}`,
        block_height: 100 + i,
        body: '{}',
        received_at: '',
      })),
    );
    await db('chain_tip').insert({
      block_height: 99,
      block_hash: `0x${'a'.repeat(64)}`,
      index_block_hash: `0x${'b'.repeat(64)}`,
      burn_block_height: 700,
      block_count: 100,
    });
  });
  afterAll(() => db?.destroy());

  const scrape = async (status: () => Promise<Record<string, TopicStatus>>) => {
    const metrics = new Registry();
    registerIndexerGauges({ db, metrics, logger, status, timeoutMs: 2_000 });
    return metrics.metrics();
  };

  it('reports the lag, the last move of each position, the tips, parked blocks and stored dead letters', async () => {
    const text = await scrape(async () => ({
      'stacks.node-events': { applied: '41', head: '46', lag: '5' },
      'bitcoin.blocks': { applied: '7', head: '7', lag: '0' },
    }));
    expect(sample(text, 'indexer_lag_records{topic="stacks.node-events"}')).toBe(5);
    expect(sample(text, 'indexer_lag_records{topic="bitcoin.blocks"}')).toBe(0);
    expect(sample(text, 'indexer_position_updated_timestamp_seconds{topic="stacks.node-events"}')).toBe(
      Date.parse('2026-11-24T01:02:03Z') / 1000,
    );
    expect(sample(text, 'indexer_chain_tip_height{chain="stacks"}')).toBe(99);
    // No rune block yet: no bitcoin sample rather than a made-up height.
    expect(sample(text, 'indexer_chain_tip_height{chain="bitcoin"}')).toBeUndefined();
    expect(sample(text, 'indexer_parked_blocks{chain="stacks"}')).toBe(3);
    expect(sample(text, 'indexer_dead_letters_stored{topic="stacks.node-events"}')).toBe(2);
    expect(sample(text, 'indexer_dead_letters_stored{topic="bitcoin.blocks"}')).toBe(0);
  });

  it('reads the positions once per scrape, however many gauges use them', async () => {
    let calls = 0;
    await scrape(async () => {
      calls += 1;
      return {};
    });
    expect(calls).toBe(1);
  });

  it('still answers the scrape, without these samples, when the bus or the database cannot be read', async () => {
    const text = await scrape(() => Promise.reject(new Error('bus down')));
    expect(text).toContain('# TYPE indexer_lag_records gauge');
    expect(text).not.toMatch(/^indexer_(lag_records|parked_blocks|chain_tip_height)[{ ]/m);
    const hung = await scrape(() => new Promise(() => {}));
    expect(hung).not.toMatch(/^indexer_lag_records[{ ]/m);
  });
});
