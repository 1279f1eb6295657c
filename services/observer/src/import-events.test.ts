import { describe, expect, it } from '@jest/globals';
import { createLogger } from '@bda/common';
import {
  BusRecordRejectedError,
  BusUnavailableError,
  decodeEnvelope,
  TOPICS,
  type BusProducer,
  type OutgoingRecord,
} from '@bda/bus';
import { ImportStoppedError, importEvents } from './import-events';
import { parseRecordedTime, type RecordedEvent } from './node-event-file';

const logger = createLogger('test', 'silent');

/** Keeps every publish call (topic and messages), failing the first `failures` calls with `error`. */
class RecordingProducer implements BusProducer {
  calls: Array<{ topic: string; messages: OutgoingRecord[] }> = [];
  attempts = 0;
  constructor(
    private failures = 0,
    private error: Error = new BusUnavailableError('broker down'),
  ) {}
  async connect(): Promise<void> {}
  async publish(topic: string, messages: OutgoingRecord[]): Promise<void> {
    this.attempts += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      throw this.error;
    }
    this.calls.push({ topic, messages });
  }
  isHealthy(): boolean {
    return true;
  }
  async disconnect(): Promise<void> {}
  get published(): Array<{ topic: string; path: string; body: unknown; receivedAt: string }> {
    return this.calls.flatMap((c) =>
      c.messages.map((m) => {
        const env = decodeEnvelope(m.value);
        return { topic: c.topic, path: env.path, body: env.body, receivedAt: env.received_at };
      }),
    );
  }
}

const BLOCK = (height: number) =>
  JSON.stringify({
    block_hash: `0x${'aa'.repeat(32)}`,
    index_block_hash: `0x${height.toString(16).padStart(64, '0')}`,
    parent_block_hash: `0x${'bb'.repeat(32)}`,
    parent_index_block_hash: `0x${(height - 1).toString(16).padStart(64, '0')}`,
    parent_microblock: `0x${'00'.repeat(32)}`,
    parent_microblock_sequence: 0,
    burn_block_hash: `0x${'cc'.repeat(32)}`,
    burn_block_height: height,
    burn_block_time: 1_700_000_000 + height,
    block_height: height,
    transactions: [],
    events: [],
  });

function row(id: number, path: string, body: string, receivedAt = '2021-08-05 16:38:39.859937+00'): RecordedEvent {
  return { id: String(id), receivedAt, path, body };
}

const blocks = (n: number) => Array.from({ length: n }, (_, i) => row(i + 1, '/new_block', BLOCK(i + 1)));

describe('importEvents', () => {
  it('publishes every row in order, in batches no larger than the limits, with the recorded receive time', async () => {
    const producer = new RecordingProducer();
    const summary = await importEvents(blocks(12), { producer, logger, maxBatchEvents: 5 });
    expect(producer.calls.map((c) => c.messages.length)).toEqual([5, 5, 2]);
    expect(producer.published.map((p) => (p.body as { block_height: number }).block_height)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    expect(producer.published[0]!.receivedAt).toBe('2021-08-05T16:38:39.859Z');
    expect(summary).toMatchObject({ imported: 12, batches: 3, retries: 0, invalid: [], skippedBeforeFrom: 0 });
  });

  it('cuts a batch at the byte limit and sends a single larger event alone', async () => {
    const producer = new RecordingProducer();
    const big = row(3, '/new_block', BLOCK(3).replace('"events":[]', `"events":[],"padding":"${'x'.repeat(5000)}"`));
    await importEvents([...blocks(2), big, row(4, '/new_block', BLOCK(4))], { producer, logger, maxBatchBytes: 2_000 });
    expect(producer.calls.map((c) => c.messages.length)).toEqual([2, 1, 1]);
  });

  it('keeps the body bytes exactly, unknown fields and all', async () => {
    const producer = new RecordingProducer();
    const body = BLOCK(1).replace('"events":[]', '"events":[],"future_field":{"n":340282366920938463463374607431768211455}');
    await importEvents([row(1, '/new_block', body)], { producer, logger });
    const value = producer.calls[0]!.messages[0]!.value.toString('utf8');
    expect(value).toContain(`"body":${body}}`);
  });

  it('sends stacks events and bitcoin blocks to their own topics without reordering either', async () => {
    const producer = new RecordingProducer();
    const btc = JSON.stringify({ block_height: 840000, raw_block: '00'.repeat(80) });
    await importEvents([row(1, '/new_block', BLOCK(1)), row(2, '/new_bitcoin_block', btc), row(3, '/new_block', BLOCK(2))], {
      producer,
      logger,
    });
    expect(producer.calls.map((c) => [c.topic, c.messages.length])).toEqual([
      [TOPICS.stacksNodeEvents, 1],
      [TOPICS.bitcoinBlocks, 1],
      [TOPICS.stacksNodeEvents, 1],
    ]);
  });

  it('stops at an invalid row with its id and the problem, after publishing everything before it', async () => {
    const producer = new RecordingProducer();
    const rows = [
      ...blocks(3),
      row(4, '/new_block', BLOCK(4).replace('"block_height":4', '"block_height":"four"')),
      ...blocks(6).slice(4),
    ];
    const err = await importEvents(rows, { producer, logger, maxBatchEvents: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportStoppedError);
    expect((err as Error).message).toMatch(
      /row id 4 \(\/new_block\) is invalid: body of \/new_block: block_height: Expected number, received string/,
    );
    expect((err as Error).message).toContain('--from-id 4');
    expect(producer.published).toHaveLength(3);
  });

  it('skips invalid rows when asked to, and says which and why', async () => {
    const producer = new RecordingProducer();
    const rows = [
      row(1, '/new_block', BLOCK(1)),
      row(2, '/new_block', '{truncated'),
      row(3, 'new_block', BLOCK(3)),
      row(4, '/new_block', BLOCK(4), 'yesterday'),
    ];
    const summary = await importEvents(rows, { producer, logger, onInvalid: 'skip' });
    expect(producer.published).toHaveLength(1);
    expect(summary.invalid.map((i) => i.id)).toEqual(['2', '3', '4']);
    expect(summary.invalid[0]!.reason).toMatch(/not valid JSON/);
    expect(summary.invalid[1]!.reason).toMatch(/does not start with \//);
    expect(summary.invalid[2]!.reason).toMatch(/"yesterday" is not a timestamp/);
  });

  it('skips rows below --from-id', async () => {
    const producer = new RecordingProducer();
    const summary = await importEvents(blocks(10), { producer, logger, fromId: 8n });
    expect(producer.published.map((p) => (p.body as { block_height: number }).block_height)).toEqual([8, 9, 10]);
    expect(summary.skippedBeforeFrom).toBe(7);
  });

  it('publishes a batch again while the bus is unavailable, and loses nothing', async () => {
    const producer = new RecordingProducer(3);
    const summary = await importEvents(blocks(4), { producer, logger, maxBatchEvents: 2, retryBackoffMs: 1 });
    expect(summary.retries).toBe(3);
    expect(producer.published.map((p) => (p.body as { block_height: number }).block_height)).toEqual([1, 2, 3, 4]);
  });

  it('gives up at once on a batch the bus rejects for good', async () => {
    const producer = new RecordingProducer(1, new BusRecordRejectedError('too large', 'MESSAGE_TOO_LARGE'));
    await expect(importEvents(blocks(3), { producer, logger, retryBackoffMs: 1 })).rejects.toThrow('too large');
    expect(producer.attempts).toBe(1);
  });

  it('stops when aborted, with nothing published behind its back', async () => {
    const controller = new AbortController();
    const producer = new RecordingProducer();
    let seen = 0;
    async function* rows() {
      for (const r of blocks(10)) {
        if (++seen === 6) controller.abort(new Error('interrupted'));
        yield r;
      }
    }
    await expect(importEvents(rows(), { producer, logger, maxBatchEvents: 2, signal: controller.signal })).rejects.toThrow(
      'interrupted',
    );
    const published = producer.published.length;
    expect(published).toBeLessThanOrEqual(4);
    await new Promise((r) => setTimeout(r, 20));
    expect(producer.published).toHaveLength(published);
  });
});

describe('parseRecordedTime', () => {
  it('reads the PostgreSQL text of the recorded rows and ISO 8601', () => {
    expect(parseRecordedTime('2021-08-05 16:38:39.859937+00')?.toISOString()).toBe('2021-08-05T16:38:39.859Z');
    expect(parseRecordedTime('2021-08-05 18:38:39+02')?.toISOString()).toBe('2021-08-05T16:38:39.000Z');
    expect(parseRecordedTime('2021-08-05T16:38:39.5-05:30')?.toISOString()).toBe('2021-08-05T22:08:39.500Z');
    expect(parseRecordedTime('2021-08-05 16:38:39')?.toISOString()).toBe('2021-08-05T16:38:39.000Z');
  });

  it('answers null for anything else', () => {
    for (const text of ['', 'yesterday', '2021-13-45 99:99:99+00', '1628181519', '2021-08-05'])
      expect(parseRecordedTime(text)).toBeNull();
  });
});
