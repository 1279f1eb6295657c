import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startKafka, type RunningKafka, testInfra } from '@bda/test-support';
import {
  BusRecordRejectedError,
  BusUnavailableError,
  type BusConsumer,
  type BusRecord,
  KafkaBus,
  type KafkaBusOptions,
} from '../src';

// Kafka-specific behaviour of KafkaBus; the behaviour both buses share is the contract suite's.

const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });
const ROOT = join(import.meta.dirname, '../../..');
const TOPIC = 'stacks.node-events';

function newBus(brokers: string, extra: Partial<KafkaBusOptions> = {}): KafkaBus {
  return new KafkaBus({
    brokers: brokers.split(','),
    clientId: 'kafka-bus-test',
    logger,
    topicPrefix: `kt_${randomBytes(4).toString('hex')}`,
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 1_000,
    retryBackoffMs: { initial: 100, max: 500 },
    ...extra,
  });
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const msg = (i: number) => ({ key: 'stacks', value: Buffer.from(`{"n":${i}}`) });

/** Collects what a consumer is handed; `lastApplied` answers from what was collected (like the indexer's DB). */
function collector(initialLast: bigint | null = null) {
  const seen: BusRecord[] = [];
  let last = initialLast;
  return {
    seen,
    lastApplied: async () => last,
    handleBatch: async (records: BusRecord[]) => {
      seen.push(...records);
      last = records[records.length - 1]!.position;
    },
    positions: () => seen.map((r) => Number(r.position)),
  };
}

describe('KafkaBus on the shared broker', () => {
  const brokers = testInfra().kafkaBrokers;
  let bus: KafkaBus;

  beforeAll(async () => {
    bus = newBus(brokers);
    await bus.ensureTopics([TOPIC, 'bitcoin.blocks']);
  });
  afterAll(async () => {
    await bus?.close();
  });

  it('creates one-partition topics with raised limits, idempotently', async () => {
    await bus.ensureTopics([TOPIC, 'bitcoin.blocks']);
    const admin = await bus.getAdmin();
    const names = [bus.topicName(TOPIC), bus.topicName('bitcoin.blocks')];
    const meta = await admin.fetchTopicMetadata({ topics: names });
    for (const t of meta.topics) expect(t.partitions).toHaveLength(1);
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: names.map((name) => ({ type: 2 /* TOPIC */, name })),
    });
    for (const r of resources) {
      const config = Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue]));
      expect(config['max.message.bytes']).toBe(String(100 * 1024 * 1024));
      expect(config['retention.ms']).toBe('-1');
      expect(config['min.insync.replicas']).toBe('1');
      expect(config['cleanup.policy']).toBe('delete');
    }
    expect(await bus.headPosition(TOPIC)).toBe(-1n);
    expect(await bus.headPosition('never-created')).toBe(-1n);
  });

  it('round-trips a ~20 MB message, even with fetch limits far below its size', async () => {
    const topic = 'bitcoin.blocks';
    const big = Buffer.from(randomBytes(15 * 1024 * 1024).toString('base64')); // 20 MiB, poorly compressible
    const producer = bus.producer();
    await producer.connect();
    await producer.publish(topic, [{ key: 'bitcoin', value: Buffer.from('{"small":1}') }]);
    await producer.publish(topic, [{ key: 'bitcoin', value: big }]);
    expect(producer.isHealthy()).toBe(true);
    expect(await bus.headPosition(topic)).toBe(1n);

    const smallFetches = newBus(brokers, { topicPrefix: undefined, fetchMaxBytes: 1024 * 1024 });
    const consumer = smallFetches.consumer(`${bus.groupName('big')}`);
    const c = collector();
    await consumer.start({ topic: bus.topicName(topic), ...c });
    await waitFor(() => c.seen.length >= 2, 'the big message');
    await smallFetches.close();
    await producer.disconnect();

    expect(c.positions()).toEqual([0, 1]);
    expect(c.seen[1]!.key).toBe('bitcoin');
    expect(c.seen[1]!.value.length).toBe(big.length);
    const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(digest(c.seen[1]!.value)).toBe(digest(big));
  });

  it('resumes after lastApplied, seeks back when Kafka committed further, retries a failing batch', async () => {
    const topic = 'resume';
    await bus.ensureTopics([topic]);
    const producer = bus.producer();
    for (let i = 0; i < 10; i++) await producer.publish(topic, [msg(i)]);
    await producer.publish(topic, [msg(10), msg(11), msg(12)]); // one call, several records, in order

    // 1. Starts after lastApplied (3), in batches of at most maxBatch.
    const first = collector(3n);
    const batches: number[] = [];
    let c1: BusConsumer = bus.consumer('indexer');
    await c1.start({
      topic,
      lastApplied: first.lastApplied,
      maxBatch: 4,
      handleBatch: async (records) => {
        batches.push(records.length);
        await first.handleBatch(records);
      },
    });
    await waitFor(() => first.seen.length >= 9, 'records 4..12');
    await c1.stop();
    expect(first.positions()).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(Math.max(...batches)).toBeLessThanOrEqual(4);
    expect(first.seen.map((r) => JSON.parse(r.value.toString()).n)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(first.seen.every((r) => r.topic === topic && r.key === 'stacks')).toBe(true);

    // 2. The group committed offset 13, but the database only has up to 6: the consumer goes back to 7.
    const second = collector(6n);
    c1 = bus.consumer('indexer');
    await c1.start({ topic, ...second });
    await waitFor(() => second.seen.length >= 6, 'records 7..12');
    await c1.stop();
    expect(second.positions()).toEqual([7, 8, 9, 10, 11, 12]);

    // 3. A fresh database (null) reads from the beginning; a failing handler gets the same records again.
    const third = collector(null);
    let failures = 0;
    c1 = bus.consumer('indexer');
    await c1.start({
      topic,
      lastApplied: third.lastApplied,
      maxBatch: 5,
      handleBatch: async (records) => {
        if (records[0]!.position === 5n && failures < 2) {
          failures++;
          throw new Error('database hiccup');
        }
        await third.handleBatch(records);
      },
    });
    await waitFor(() => third.seen.length >= 13, 'records 0..12');
    await c1.stop();
    expect(failures).toBe(2);
    expect(third.positions()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await c1.headPosition(topic)).toBe(12n);
    await producer.disconnect();
  });

  it('rejects a message larger than the topic allows with BusRecordRejectedError (not retriable)', async () => {
    const strict = newBus(brokers, { maxMessageBytes: 64 * 1024 });
    await strict.ensureTopics(['strict']);
    const producer = strict.producer();
    const err = await producer.publish('strict', [{ key: 'stacks', value: randomBytes(1024 * 1024) }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusRecordRejectedError);
    expect(err).not.toBeInstanceOf(BusUnavailableError);
    expect(producer.isHealthy()).toBe(true); // the broker answered
    await producer.publish('strict', [msg(1)]); // and the producer still works
    await strict.close();
  });

  it('stop() waits for the batch in progress', async () => {
    const topic = 'stop-waits';
    await bus.ensureTopics([topic]);
    const producer = bus.producer();
    await producer.publish(topic, [msg(0)]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const events: string[] = [];
    const consumer = bus.consumer('stopper');
    await consumer.start({
      topic,
      lastApplied: async () => null,
      handleBatch: async () => {
        events.push('handler started');
        await gate;
        events.push('handler done');
      },
    });
    await waitFor(() => events.length > 0, 'the handler to start');
    const stopped = consumer.stop().then(() => events.push('stopped'));
    await new Promise((r) => setTimeout(r, 300));
    expect(events).toEqual(['handler started']);
    release();
    await stopped;
    expect(events).toEqual(['handler started', 'handler done', 'stopped']);
    await producer.disconnect();
  });

  it('hands the partition to a standby in the same group, which resumes from lastApplied', async () => {
    const topic = 'standby';
    await bus.ensureTopics([topic]);
    const producer = bus.producer();
    await producer.publish(topic, [msg(0), msg(1), msg(2)]);

    // One shared "database" for both indexers.
    const db = collector(null);
    const active = bus.consumer('standby-group');
    const standby = bus.consumer('standby-group');
    const byWhom: string[] = [];
    const handler = (who: string) => async (records: BusRecord[]) => {
      byWhom.push(...records.map(() => who));
      await db.handleBatch(records);
    };
    await active.start({ topic, lastApplied: db.lastApplied, handleBatch: handler('active') });
    await waitFor(() => db.seen.length >= 3, 'records 0..2');
    await standby.start({ topic, lastApplied: db.lastApplied, handleBatch: handler('standby') });
    await active.stop();
    await producer.publish(topic, [msg(3), msg(4)]);
    await waitFor(() => db.seen.length >= 5, 'records 3..4 on the standby');
    await standby.stop();
    await producer.disconnect();

    expect(db.positions()).toEqual([0, 1, 2, 3, 4]);
    expect(byWhom.slice(0, 3)).toEqual(['active', 'active', 'active']);
    expect(byWhom.slice(3)).toEqual(['standby', 'standby']);
  });
});

describe('KafkaBus when its broker stops and comes back', () => {
  const dataDir = join(ROOT, '.tmp', `kafka-bus-test-${process.pid}`);
  let kafka: RunningKafka | undefined;
  let bus: KafkaBus;

  beforeAll(async () => {
    const broker = await startKafka({ dataDir, fresh: true });
    kafka = broker;
    // A consumer that crashed while the broker was down rejoins as a new member; the restarted coordinator
    // waits for the old member's session to expire first, so a short session keeps this test short.
    bus = newBus(broker.brokers, { publishTimeoutMs: 10_000, sessionTimeoutMs: 6_000 });
    await bus.ensureTopics([TOPIC]);
  });
  afterAll(async () => {
    await bus?.close();
    await kafka?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails fast with BusUnavailableError while down, then publishes again and loses nothing', async () => {
    const producer = bus.producer();
    await producer.connect();
    const db = collector(null);
    const consumer = bus.consumer('indexer');
    await consumer.start({ topic: TOPIC, ...db });

    await producer.publish(TOPIC, [msg(0)]);
    await producer.publish(TOPIC, [msg(1)]);
    await waitFor(() => db.seen.length >= 2, 'records 0..1');
    expect(producer.isHealthy()).toBe(true);

    if (!kafka) throw new Error('no broker');
    await kafka.stop();
    const started = Date.now();
    const err = await producer.publish(TOPIC, [msg(2)]).catch((e: unknown) => e);
    const took = Date.now() - started;
    if (process.env.KAFKA_TEST_TIMINGS) console.log(`publish failed after ${took} ms`);
    expect(err).toBeInstanceOf(BusUnavailableError);
    expect(took).toBeLessThan(10_000 + 2_000); // bounded by publishTimeoutMs: it never hangs
    expect(producer.isHealthy()).toBe(false);
    await expect(bus.headPosition(TOPIC)).rejects.toBeInstanceOf(BusUnavailableError);

    await kafka.start();
    // The sender retries until the bus takes the message (the node does this on 503).
    for (let attempt = 0; ; attempt++) {
      try {
        await producer.publish(TOPIC, [msg(2)]);
        break;
      } catch (e) {
        expect(e).toBeInstanceOf(BusUnavailableError);
        if (attempt > 20) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    expect(producer.isHealthy()).toBe(true);
    await producer.publish(TOPIC, [msg(3)]);

    // The consumer started before the outage carries on by itself.
    await waitFor(() => db.seen.length >= 4, 'records 2..3 after the restart', 90_000);
    await consumer.stop();
    await producer.disconnect();
    expect(db.seen.map((r) => JSON.parse(r.value.toString()).n)).toEqual([0, 1, 2, 3]);
    expect(db.positions()).toEqual([0, 1, 2, 3]);
    expect(await bus.headPosition(TOPIC)).toBe(3n);
  });
});
