/**
 * The indexer process with `REDIS_URL` (ADR 0048): the mocknet recording posted to a real observer and applied by a
 * real indexer process (tsx, as `npm start` runs it) that fences on Redis under a prefix of the test's own, while the
 * test holds a lease as a gateway worker would. The process's start-up fence, then one per transaction; its metrics;
 * and, once stopped, no writer left on Redis.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FenceHolder, fenceKeys } from '@bda/answer-fence';
import { createDb } from '@bda/db';
import { createTestDatabase, freePorts, testInfra } from '@bda/test-support';
import { replayFile } from '../../../scripts/lib/replay-events';
import { startService, stopService, waitForHttp, type ServiceProcess } from '../../../scripts/lib/service-process';

const MOCKNET = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'stacks-node-events', 'mocknet.tsv');

/** Polls `check` until it holds (a state to reach, not a time to meet); fails after 60 s. */
async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the indexer process fences its commits when REDIS_URL is set', () => {
  const { databaseUrl, redisUrl } = testInfra();
  const prefix = `bda:fence:p${randomBytes(4).toString('hex')}:`;
  const keys = fenceKeys(prefix);
  const logs: string[] = [];
  const procs: ServiceProcess[] = [];
  let db: Knex;
  let redis: Redis;
  let holder: FenceHolder;
  let indexerUrl: string;
  let observerUrl: string;

  const start = async (name: 'indexer' | 'observer', env: NodeJS.ProcessEnv, health: string) => {
    const p = startService(name, env, (n, line) => logs.push(`${n} ${line}`));
    procs.push(p);
    await waitForHttp(health, 120_000, () => p.child.exitCode === null && p.child.signalCode === null);
    return p;
  };

  beforeAll(async () => {
    const url = await createTestDatabase(databaseUrl, 'idx_fence_proc');
    db = createDb({ connectionString: url, maxConnections: 2 });
    redis = new Redis(redisUrl);
    const [observerPort, indexerPort] = (await freePorts(2)) as [number, number];
    const bus = `f${randomBytes(4).toString('hex')}.`;
    const common = { DATABASE_URL: url, BUS_DATABASE_URL: url, KAFKA_BROKERS: '', BUS_TOPIC_PREFIX: bus, LOG_LEVEL: 'warn' };
    indexerUrl = `http://127.0.0.1:${indexerPort}`;
    observerUrl = `http://127.0.0.1:${observerPort}`;
    await start(
      'indexer',
      {
        ...common,
        INDEXER_PORT: String(indexerPort),
        INDEXER_GROUP_ID: `indexer-${bus}`,
        REDIS_URL: redisUrl,
        ANSWER_FENCE_PREFIX: prefix,
        INDEXER_FENCE_HEARTBEAT_MS: '1000',
      },
      `${indexerUrl}/readyz`,
    );
    await start(
      'observer',
      { ...common, OBSERVER_PORT: String(observerPort), OBSERVER_HOST: '127.0.0.1', OBSERVER_INDEXER_URL: indexerUrl },
      `${observerUrl}/healthz`,
    );
  });

  afterAll(async () => {
    for (const p of procs.reverse()) await stopService(p);
    await holder?.stop();
    redis?.disconnect();
    await db?.destroy();
  });

  const epochRow = async () => Number((await db('data_epoch').first<{ epoch: string }>('epoch'))!.epoch);

  it('fences once after its migrations, then every transaction, while a holder serves the epoch', async () => {
    // The start-up fence (the indexer is ready only after it): one writer on Redis, epoch 1 in both places.
    expect(await redis.zcard(keys.writers)).toBe(1);
    expect(await epochRow()).toBe(1);
    expect(await redis.get(keys.epoch)).toBe('1');

    holder = new FenceHolder({ url: redisUrl, prefix, leaseMs: 500 });
    holder.start();
    await until(async () => (await redis.zscore(keys.holders, holder.id)) !== null, 'the holder holds a lease');

    await replayFile(MOCKNET, { observerUrl, maxRetryMs: 30_000 });
    await until(async () => {
      const body = (await (await fetch(`${indexerUrl}/status`)).json()) as { topics: Record<string, { lag: string }> };
      return Object.values(body.topics).every((t) => t.lag === '0');
    }, 'the indexer applied everything');
    const tip = await db('blocks').where({ canonical: true }).max<{ h: number }>('block_height as h').first();
    expect(tip?.h).toBe(28);

    const metrics = await (await fetch(`${indexerUrl}/metrics`)).text();
    const count = (outcome: string) =>
      Number(new RegExp(`^indexer_answer_fence_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    const fences = count('acknowledged') + count('lapsed') + count('unreachable');
    const timed = Number(/^indexer_answer_fence_seconds_count(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1]);
    const epoch = await epochRow();
    // Every fence raised the epoch by one (the start-up's included); the replay took some transactions.
    expect(epoch).toBeGreaterThan(1);
    expect(fences).toBe(epoch);
    expect(timed).toBe(epoch);
    expect(count('unreachable')).toBe(0);
    expect(await redis.get(keys.epoch)).toBe(String(epoch));
    expect(holder.servingEpoch()).toBe(epoch);
  });

  it('leaves the writers set when it stops (after its consumers)', async () => {
    const indexer = procs.find((p) => p.name === 'indexer')!;
    const observer = procs.find((p) => p.name === 'observer')!;
    await stopService(observer);
    await stopService(indexer);
    expect(await indexer.exited).toBe(0);
    expect(await redis.zcard(keys.writers)).toBe(0);
    expect(logs.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
  });
});
