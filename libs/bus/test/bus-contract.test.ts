import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@bda/common';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { decodeEnvelope, encodeEnvelope, KafkaBus, PgLogBus, type Bus, type BusRecord } from '../src';

const logger = createLogger('bus-contract', 'silent');

/** One contract, two implementations: everything the observer and the indexer rely on. */
describe.each([
  [
    'postgres',
    async () =>
      new PgLogBus({ connectionString: await createTestDatabase(testInfra().databaseUrl), logger, pollIntervalMs: 200 }),
  ],
  [
    'kafka',
    async () =>
      new KafkaBus({
        brokers: testInfra().kafkaBrokers.split(','),
        clientId: 'contract',
        logger,
        topicPrefix: `c${randomBytes(3).toString('hex')}.`,
      }),
  ],
] as const)('the %s bus', (_name, make) => {
  let bus: Bus;
  beforeAll(async () => {
    bus = await make();
  });
  afterAll(async () => {
    await bus?.close();
  });

  const topic = () => `contract-${randomBytes(4).toString('hex')}`;

  /** Consumes until `n` records arrived (or the timeout), then stops the consumer. */
  async function consume(t: string, n: number, lastApplied: bigint | null = null, failFirst = 0): Promise<BusRecord[]> {
    const got: BusRecord[] = [];
    let failures = 0;
    const consumer = bus.consumer(`g-${randomBytes(3).toString('hex')}`);
    await consumer.start({
      topic: t,
      lastApplied: async () => (got.length ? got[got.length - 1]!.position : lastApplied),
      handleBatch: async (records) => {
        if (failures < failFirst) {
          failures += 1;
          throw new Error('handler failed');
        }
        got.push(...records);
      },
      maxBatch: 7,
    });
    const deadline = Date.now() + 60_000;
    while (got.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await consumer.stop();
    return got;
  }

  it('delivers what was published, in order, with strictly increasing positions', async () => {
    const t = topic();
    await bus.ensureTopics([t]);
    const producer = bus.producer();
    await producer.connect();
    for (let i = 0; i < 20; i++)
      await producer.publish(t, [{ key: 'stacks', value: encodeEnvelope('/new_block', new Date(), `{"i":${i}}`) }]);
    const got = await consume(t, 20);
    expect(got.map((r) => decodeEnvelope<{ i: number }>(r.value).body.i)).toEqual([...Array(20).keys()]);
    for (let i = 1; i < got.length; i++) expect(got[i]!.position > got[i - 1]!.position).toBe(true);
    expect(got.every((r) => r.key === 'stacks')).toBe(true);
    expect(await bus.consumer('head').headPosition(t)).toBe(got[got.length - 1]!.position);
    await producer.disconnect();
  });

  it('starts after the position the owner says it applied', async () => {
    const t = topic();
    await bus.ensureTopics([t]);
    const producer = bus.producer();
    await producer.connect();
    await producer.publish(
      t,
      [...Array(10).keys()].map((i) => ({ key: 'k', value: Buffer.from(`{"path":"/x","received_at":"","body":${i}}`) })),
    );
    const all = await consume(t, 10);
    const rest = await consume(t, 6, all[3]!.position);
    expect(rest.map((r) => decodeEnvelope<number>(r.value).body)).toEqual([4, 5, 6, 7, 8, 9]);
    await producer.disconnect();
  });

  it('redelivers the same records after the handler throws', async () => {
    const t = topic();
    await bus.ensureTopics([t]);
    const producer = bus.producer();
    await producer.connect();
    await producer.publish(
      t,
      [...Array(5).keys()].map((i) => ({ key: 'k', value: Buffer.from(`{"path":"/x","received_at":"","body":${i}}`) })),
    );
    const got = await consume(t, 5, null, 2);
    expect(got.map((r) => decodeEnvelope<number>(r.value).body)).toEqual([0, 1, 2, 3, 4]);
    await producer.disconnect();
  });

  it('reads the newest record of a topic, and none of a topic that is empty or was never created', async () => {
    const t = topic();
    expect(await bus.lastRecord(t)).toBeNull();
    await bus.ensureTopics([t]);
    expect(await bus.lastRecord(t)).toBeNull();
    const producer = bus.producer();
    await producer.connect();
    await producer.publish(
      t,
      [...Array(3).keys()].map((i) => ({
        key: 'bitcoin',
        value: encodeEnvelope('/new_bitcoin_block', new Date(0), `{"i":${i}}`),
      })),
    );
    await producer.publish(t, [{ key: 'bitcoin', value: encodeEnvelope('/new_bitcoin_block', new Date(0), '{"i":3}') }]);
    const last = await bus.lastRecord(t);
    expect(last).toMatchObject({ topic: t, key: 'bitcoin', position: await bus.consumer('head').headPosition(t) });
    expect(decodeEnvelope<{ i: number }>(last!.value).body.i).toBe(3);
    await producer.disconnect();
  });

  it('carries large bodies and JSON escapes byte for byte', async () => {
    const t = topic();
    await bus.ensureTopics([t]);
    const producer = bus.producer();
    await producer.connect();
    const big = JSON.stringify({ s: 'x'.repeat(6 * 1024 * 1024), nul: '\u0000', q: '"\\\n' });
    const value = encodeEnvelope('/new_block', new Date(0), big);
    await producer.publish(t, [{ key: 'stacks', value }]);
    const [record] = await consume(t, 1);
    expect(Buffer.compare(record!.value, value)).toBe(0);
    expect(decodeEnvelope<{ nul: string }>(record!.value).body.nul).toBe('\u0000');
    await producer.disconnect();
  });
});
