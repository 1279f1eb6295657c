import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FenceHolder, FenceWriter, fenceKeys, type FenceOutcome } from '@bda/answer-fence';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { encodeEnvelope, type BusRecord, type Envelope } from '@bda/bus';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { PoisonMessageError } from '../src/apply-error';
import { importBnsGenesis } from '../src/bns/genesis-import';
import { fenceBeforeMigrations, fenceNow } from '../src/data-epoch';
import { runBnsImport } from '../src/cli/bns-import';
import { loadIndexerEnv } from '../src/env';
import { RecordApplier } from '../src/record-applier';
import { stacksEventHandler } from '../src/stacks/stacks-event-handler';
import { loadColumnTypes } from '../src/write-statements';

/**
 * The indexer's side of the answer fence (ADR 0048) on a real PostgreSQL and Redis: the mocknet recording replayed
 * through the stacks handler in batches of varying size, each transaction raising `data_epoch` and fencing it while a
 * gateway worker's `FenceHolder` holds a lease; a holder that never acknowledges holding a commit back until its lease
 * ends; and no epoch at all without a fence.
 */

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures');
const MOCKNET = join(FIXTURES, 'stacks-node-events', 'mocknet.tsv');

/** The recording's events as the bus carries them (the observer passes `/new_block` bodies through unchanged). */
function mocknetRecords(): BusRecord[] {
  return readFileSync(MOCKNET, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line, i) => {
      const [, receivedAt, path, ...body] = line.split('\t');
      const at = new Date(`${receivedAt!.replace(' ', 'T')}:00`);
      return { topic: 'stacks', position: BigInt(i), key: 'stacks', value: encodeEnvelope(path!, at, body.join('\t')) };
    });
}

/** Redis's clock in ms. */
async function redisNow(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Polls `check` until it holds (a state to reach, not a time to meet); fails after 10 s. */
async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const epochOf = async (db: Knex) => Number((await db('data_epoch').first<{ epoch: string }>('epoch'))!.epoch);

describe('the indexer fences every transaction (ADR 0048)', () => {
  const { databaseUrl, redisUrl } = testInfra();
  const logger = createLogger('indexer', 'silent');
  const prefix = `bda:fence:t${randomBytes(4).toString('hex')}:`;
  const keys = fenceKeys(prefix);
  let db: Knex;
  let dbUrl: string;
  let redis: Redis;
  let writer: FenceWriter;
  let holder: FenceHolder;

  beforeAll(async () => {
    dbUrl = await createTestDatabase(databaseUrl, 'idx_fence');
    db = createDb({ connectionString: dbUrl, maxConnections: 4 });
    await migrateLatest(db);
    await loadColumnTypes(db);
    await db.schema.createTable('fence_items', (t) => t.integer('n').primary());
    redis = new Redis(redisUrl);
    writer = new FenceWriter({ url: redisUrl, prefix, heartbeatMs: 1_000, logger });
    await writer.start();
    holder = new FenceHolder({ url: redisUrl, prefix, leaseMs: 500, logger });
    holder.start();
    // A lease is granted once the holder is subscribed and the writer's heartbeat runs.
    await until(async () => (await redis.zscore(keys.holders, holder.id)) !== null, 'the holder holds a lease');
  });

  afterAll(async () => {
    await holder?.stop();
    await writer?.stop();
    redis?.disconnect();
    await db?.destroy();
  });

  it('raises data_epoch once per committed transaction over the mocknet replay; the holder serves that epoch', async () => {
    const records = mocknetRecords();
    expect(records).toHaveLength(29);
    const before = await epochOf(db);
    const fenced: number[] = [];
    const outcomes: FenceOutcome[] = [];
    const applier = new RecordApplier({
      db,
      logger,
      metrics: createMetricsRegistry('indexer'),
      positionKey: 'fence.stacks',
      ...stacksEventHandler(logger),
      fence: async (epoch) => {
        fenced.push(epoch);
        outcomes.push(await writer.fence(epoch));
      },
    });
    await applier.ensurePositionRow();
    // Batches of 1, 2, 3… records (no time limit: one transaction each), then the last six again (redelivered:
    // nothing to apply, still a transaction that commits: the position moves, nothing else).
    let batches = 0;
    for (let from = 0, size = 1; from < records.length; from += size, size++) {
      await applier.applyBatch(records.slice(from, from + size));
      batches++;
    }
    await applier.applyBatch(records.slice(-6));
    batches++;
    expect(batches).toBe(9);
    expect(await applier.lastApplied()).toBe(28n);
    const tip = await db('blocks').where({ canonical: true }).max<{ h: number }>('block_height as h').first();
    expect(tip?.h).toBe(28);

    // Every batch but the redelivered one applied something: each raised the epoch once; the redelivered one, which
    // changed nothing the api reads, left it (and what the gateways keep) alone.
    const epoch = await epochOf(db);
    expect(epoch - before).toBe(batches - 1);
    // Each fence came with the epoch its transaction gave the data, in commit order.
    expect(fenced).toEqual(Array.from({ length: batches - 1 }, (_, i) => before + i + 1));
    expect(outcomes).not.toContain('unreachable');
    expect(Number(await redis.get(keys.epoch))).toBe(epoch);
    expect(holder.servingEpoch()).toBe(epoch);
  });

  it('commits only once a holder that never acknowledges has seen its lease end', async () => {
    const outcomes: FenceOutcome[] = [];
    let fencedAt = 0;
    let visibleBeforeCommit: boolean | undefined;
    const applier = new RecordApplier({
      db,
      logger,
      metrics: createMetricsRegistry('indexer'),
      positionKey: 'fence.silent',
      handle: async (trx: Knex.Transaction, env: Envelope) => {
        await trx('fence_items').insert({ n: (env.body as { n: number }).n });
      },
      fence: async (epoch) => {
        outcomes.push(await writer.fence(epoch));
        // Still inside the transaction: Redis's clock now, and whether another connection sees the record yet.
        fencedAt = await redisNow(redis);
        visibleBeforeCommit = (await db('fence_items').where({ n: 7 }).first()) !== undefined;
      },
    });
    await applier.ensurePositionRow();
    const before = await epochOf(db);
    // A holder whose lease runs 800 ms more and that never acknowledges anything.
    const leaseEnd = (await redisNow(redis)) + 800;
    await redis.zadd(keys.holders, leaseEnd, 'silent');
    await applier.applyBatch([
      { topic: 'silent', position: 0n, key: 'k', value: encodeEnvelope('/test', new Date(0), JSON.stringify({ n: 7 })) },
    ]);
    const seenAfter = (await db('fence_items').where({ n: 7 }).first()) !== undefined;
    const after = await redisNow(redis);

    expect(outcomes).toEqual(['lapsed']);
    // The fence resolved (the commit came after it) at or after the silent holder's lease ended, on Redis's clock;
    // until then another connection did not see the record.
    expect(fencedAt).toBeGreaterThanOrEqual(leaseEnd);
    expect(visibleBeforeCommit).toBe(false);
    expect(seenAfter).toBe(true);
    expect(after).toBeGreaterThanOrEqual(leaseEnd);
    expect(await epochOf(db)).toBe(before + 1);
  });

  it('fences the transaction of the isolating path once, after a batch that could not be applied whole', async () => {
    const fenced: number[] = [];
    const applier = new RecordApplier({
      db,
      logger,
      metrics: createMetricsRegistry('indexer'),
      positionKey: 'fence.isolated',
      handle: async (trx: Knex.Transaction, env: Envelope) => {
        const { n } = env.body as { n: number };
        if (n < 0) throw new PoisonMessageError('cannot apply this one');
        await trx('fence_items').insert({ n });
      },
      fence: async (epoch) => {
        fenced.push(epoch);
        await writer.fence(epoch);
      },
    });
    await applier.ensurePositionRow();
    const before = await epochOf(db);
    const rec = (position: number, n: number): BusRecord => ({
      topic: 'isolated',
      position: BigInt(position),
      key: 'k',
      value: encodeEnvelope('/test', new Date(0), JSON.stringify({ n })),
    });
    await applier.applyBatch([rec(0, 100), rec(1, -1), rec(2, 102)]);
    // The fast path failed before its end (nothing fenced, rolled back); the isolating path committed once.
    expect(await db('fence_items').whereIn('n', [100, 102]).count<Array<{ count: string }>>('* as count')).toEqual([
      { count: '2' },
    ]);
    expect(await db('dead_letters').where({ topic: 'fence.isolated' }).count<Array<{ count: string }>>('* as count')).toEqual([
      { count: '1' },
    ]);
    expect(fenced).toEqual([before + 1]);
    expect(await epochOf(db)).toBe(before + 1);
    expect(holder.servingEpoch()).toBe(before + 1);
  });

  it('fences each batch of the BNS genesis import in its own transaction', async () => {
    const fenced: number[] = [];
    const before = await epochOf(db);
    const counts = await importBnsGenesis(db, join(FIXTURES, 'bns-v1-import'), async (epoch) => {
      fenced.push(epoch);
      await writer.fence(epoch);
    });
    expect(counts.names).toBeGreaterThan(0);
    // Four files of fewer than 1,000 rows each: one batch per file.
    expect(fenced).toEqual([before + 1, before + 2, before + 3, before + 4]);
    expect(await epochOf(db)).toBe(before + 4);
    expect(holder.servingEpoch()).toBe(before + 4);
  });

  it('fences once after the migrations and then each batch when the bns-import command has REDIS_URL', async () => {
    const before = await epochOf(db);
    const out: string[] = [];
    const code = await runBnsImport([join(FIXTURES, 'bns-v1-import')], dbUrl, (line) => out.push(line), {
      url: redisUrl,
      prefix,
      heartbeatMs: 1_000,
    });
    expect([code, out.length]).toEqual([0, 1]);
    expect(await epochOf(db)).toBe(before + 1 + 4);
    expect(Number(await redis.get(keys.epoch))).toBe(before + 5);
    expect(holder.servingEpoch()).toBe(before + 5);
  });

  it('serves and keeps nothing while migrations run: the epoch after the database is fenced before them', async () => {
    await until(async () => holder.servingEpoch() === (await epochOf(db)), 'the holder serves the database epoch');
    const n = await epochOf(db);
    await fenceBeforeMigrations(db, (epoch) => writer.fence(epoch));
    // Holders are past the database: no kept answer (epoch n) is served, and an answer read now (epoch n) is not kept.
    expect(holder.servingEpoch()).toBe(n + 1);
    expect(await epochOf(db)).toBe(n);
    await migrateLatest(db);
    await fenceNow(db, (epoch) => writer.fence(epoch));
    // The first commit after them meets the holders: answers read from now on (epoch n + 1) are kept again.
    expect(await epochOf(db)).toBe(n + 1);
    expect(holder.servingEpoch()).toBe(n + 1);
  });

  it('fences nothing before the migrations of a database that has no data_epoch yet', async () => {
    const fresh = createDb({ connectionString: await createTestDatabase(databaseUrl, 'idx_fence_new'), maxConnections: 1 });
    try {
      const fenced: number[] = [];
      await fenceBeforeMigrations(fresh, async (epoch) => fenced.push(epoch));
      expect(fenced).toEqual([]);
    } finally {
      await fresh.destroy();
    }
  });

  it('leaves data_epoch alone without a fence (no REDIS_URL)', async () => {
    const env = loadIndexerEnv({});
    expect(env.REDIS_URL).toBeUndefined();
    expect(loadIndexerEnv({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
    expect(loadIndexerEnv({ REDIS_URL: 'redis://r:6379' }).REDIS_URL).toBe('redis://r:6379');
    expect(() => loadIndexerEnv({ REDIS_URL: 'not a url' })).toThrow();
    expect(env.ANSWER_FENCE_PREFIX).toBe('bda:fence:');
    expect(env.INDEXER_FENCE_HEARTBEAT_MS).toBe(3_000);

    const plain = createDb({ connectionString: await createTestDatabase(databaseUrl, 'idx_nofence'), maxConnections: 2 });
    try {
      await migrateLatest(plain);
      const applier = new RecordApplier({
        db: plain,
        logger,
        metrics: createMetricsRegistry('indexer'),
        positionKey: 'plain.stacks',
        ...stacksEventHandler(logger),
      });
      await applier.ensurePositionRow();
      const records = mocknetRecords();
      for (let i = 0; i < records.length; i += 5) await applier.applyBatch(records.slice(i, i + 5));
      expect(await applier.lastApplied()).toBe(28n);
      await importBnsGenesis(plain, join(FIXTURES, 'bns-v1-import'));
      expect(await plain('data_epoch').select('id', 'epoch')).toEqual([{ id: 1, epoch: '0' }]);
    } finally {
      await plain.destroy();
    }
  });
});
