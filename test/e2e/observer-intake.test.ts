import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startKafka, type RunningKafka, testInfra } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import { TestSystem } from '../support/test-system';

async function post(url: string, body: string | Buffer, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, body: (await res.json().catch(() => null)) as { error?: string; message?: string } | null };
}

describe('the observer under malformed input', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer'], { OBSERVER_BODY_LIMIT: '1mb' });
  });
  afterAll(() => sys?.stop());

  const block = () =>
    JSON.parse(loadFixture('mocknet.tsv').find((e) => e.path === '/new_block')!.body) as Record<string, unknown>;

  it('answers 400 naming the problem when the body is not JSON', async () => {
    const res = await post(`${sys.observerUrl}/new_block`, '{"block_hash": ');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
    expect(res.body!.message).toMatch(/not valid JSON/);
  });

  it('answers 400 naming the field when a field has the wrong type', async () => {
    const res = await post(`${sys.observerUrl}/new_block`, JSON.stringify({ ...block(), block_height: 'twelve' }));
    expect(res.status).toBe(400);
    expect(res.body!.message).toMatch(/block_height/);
  });

  it('answers 400 naming the field when a required field is missing', async () => {
    const { index_block_hash: _, ...rest } = block();
    const res = await post(`${sys.observerUrl}/new_block`, JSON.stringify(rest));
    expect(res.status).toBe(400);
    expect(res.body!.message).toMatch(/index_block_hash/);
  });

  it('answers 400 for an empty body and for a body of the wrong JSON type', async () => {
    expect((await post(`${sys.observerUrl}/new_burn_block`, '')).status).toBe(400);
    const res = await post(`${sys.observerUrl}/new_mempool_tx`, JSON.stringify({ not: 'an array' }));
    expect(res.status).toBe(400);
    expect(res.body!.message).toMatch(/expected array/i);
  });

  it('answers 413 when the body exceeds the configured limit', async () => {
    const res = await post(`${sys.observerUrl}/new_block`, Buffer.alloc(2 * 1024 * 1024, 0x20));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 'payload_too_large' });
  });

  it('answers 400 for a bitcoin block that is not hex', async () => {
    const res = await post(`${sys.observerUrl}/new_bitcoin_block`, JSON.stringify({ block_height: 1, raw_block: 'zz' }));
    expect(res.status).toBe(400);
    expect(res.body!.message).toMatch(/raw_block/);
  });

  it('answers 431 JSON when the request line is beyond the header limit', async () => {
    const res = await fetch(`${sys.observerUrl}/new_block?${'x'.repeat(20_000)}`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(431);
    expect(await res.json()).toMatchObject({ error: 'request_too_large' });
  });

  it('answers 405 JSON to other methods', async () => {
    const res = await fetch(`${sys.observerUrl}/new_block`);
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('accepts and keeps an unknown path raw, and keeps unknown fields of known paths', async () => {
    expect((await post(`${sys.observerUrl}/new_future_thing`, 'not even json', 'text/plain')).status).toBe(200);
    expect((await post(`${sys.observerUrl}/new_block`, JSON.stringify({ ...block(), some_future_field: { x: 1 } }))).status).toBe(
      200,
    );
    await sys.waitForCaughtUp();
    // The prefix isolates this system's log in a schema of its own; the topic names inside it are the plain ones.
    const { rows } = await sys.db.raw(
      `SELECT topic, count(*)::int AS n FROM bus_${sys.topicPrefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}.log GROUP BY topic`,
    );
    expect(rows).toEqual([{ topic: 'stacks.node-events', n: 2 }]);
  });

  it('keeps serving after all of that: a valid event is indexed', async () => {
    const res = await post(`${sys.observerUrl}/new_block`, JSON.stringify(block()));
    expect(res.status).toBe(200);
    await sys.waitForCaughtUp();
    expect(await sys.db('blocks').count({ n: '*' })).toEqual([{ n: '1' }]);
    expect(await sys.db('dead_letters').count({ n: '*' })).toEqual([{ n: '0' }]);
  });

  it('indexes a mempool event that names the same transaction twice as one pending transaction', async () => {
    const raw = (
      JSON.parse(loadFixture('fuzzed-transactions-1.tsv').find((e) => e.path === '/new_mempool_tx')!.body) as string[]
    )[0]!;
    const res = await post(`${sys.observerUrl}/new_mempool_tx`, JSON.stringify([raw, raw]));
    expect(res.status).toBe(200);
    await sys.waitForCaughtUp();
    expect(await sys.db('dead_letters').select('reason')).toEqual([]);
    expect(await sys.db('mempool_txs').select('status')).toEqual([{ status: 'pending' }]);
  });
});

describe('the observer while Kafka is down', () => {
  let kafka: RunningKafka;
  let sys: TestSystem;
  const dataDir = join(import.meta.dirname, '..', '..', '.tmp', `kafka-outage-${process.pid}`);
  beforeAll(async () => {
    kafka = await startKafka({ dataDir, fresh: true });
    sys = await TestSystem.start({
      bus: 'kafka',
      serverUrl: testInfra().databaseUrl,
      kafkaBrokers: kafka.brokers,
      services: ['indexer', 'observer'],
    });
  });
  afterAll(async () => {
    await sys?.stop();
    await kafka?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 while the broker is stopped, and loses nothing once it is back', async () => {
    const events = loadFixture('mocknet.tsv');
    await replayEvents(events.slice(0, 10), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await kafka.stop();

    const refused = await post(`${sys.observerUrl}/new_block`, events[10]!.body);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: 'service_unavailable' });

    // The replay tool keeps retrying, as a node does; bring the broker back while it waits.
    let retries = 0;
    const replay = replayEvents(events.slice(10), {
      observerUrl: sys.observerUrl,
      onRetry: () => {
        retries += 1;
      },
    });
    while (retries < 3) await new Promise((r) => setTimeout(r, 200));
    await kafka.start();
    const summary = await replay;
    expect(summary.events).toBe(events.length - 10);
    expect(summary.retries).toBeGreaterThanOrEqual(3);

    await sys.waitForCaughtUp(120_000);
    const tip = await sys.db('chain_tip').first();
    expect(tip).toMatchObject({
      block_height: 28,
      index_block_hash: '0x76cd67a65c0dfd5ea450bb9efe30da89fa125bfc077c953802f718353283a533',
    });
    expect(await sys.db('blocks').count({ n: '*' })).toEqual([{ n: '28' }]);
  }, 300_000);
});
