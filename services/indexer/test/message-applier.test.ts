import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { encodeEnvelope, type BusRecord, type Envelope } from '@bda/bus';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase } from '@bda/test-support';
import { PoisonMessageError } from '../src/apply-error';
import { describeFailure, MessageApplier } from '../src/message-applier';
import { WriteBatch } from '../src/sql';

const record = (position: number, body: unknown): BusRecord => ({
  topic: 'test.topic',
  position: BigInt(position),
  key: 'test',
  value: encodeEnvelope('/test', new Date(0), JSON.stringify(body)),
});
const batch = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => record(from + i, { n: from + i }));

describe('MessageApplier', () => {
  let db: Knex;
  let seen: number[];
  let applier: MessageApplier;

  /** Writes each record's number to `applier_items`; a body `{poison: true}` cannot be applied. */
  const make = (positionKey: string) =>
    new MessageApplier({
      db,
      logger: createLogger('indexer', 'silent'),
      metrics: createMetricsRegistry('indexer'),
      positionKey,
      handle: async (trx: Knex.Transaction, env: Envelope) => {
        const body = env.body as { n?: number; poison?: boolean };
        if (body.poison) throw new PoisonMessageError('cannot apply this one');
        seen.push(body.n!);
        await trx('applier_items').insert({ n: body.n });
      },
    });

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(inject('databaseUrl'), 'applier'), maxConnections: 4 });
    await migrateLatest(db);
    await db.schema.createTable('applier_items', (t) => t.integer('n').primary());
  });
  afterAll(() => db.destroy());
  beforeEach(async () => {
    seen = [];
    await db('applier_items').delete();
    await db('consumer_positions').delete();
    await db('dead_letters').delete();
    applier = make('test.topic');
    await applier.ensurePositionRow();
  });

  it('applies a batch once and moves the position to its last record', async () => {
    expect(await applier.lastApplied()).toBeNull();
    await applier.applyBatch(batch(0, 4));
    expect(await applier.lastApplied()).toBe(4n);
    expect((await db('applier_items').orderBy('n')).map((r: { n: number }) => r.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('skips what it already applied when a batch comes again or overlaps the last one', async () => {
    await applier.applyBatch(batch(0, 4));
    await applier.applyBatch(batch(0, 4));
    await applier.applyBatch(batch(3, 7));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await applier.lastApplied()).toBe(7n);
  });

  it('never moves the position back when an older batch arrives late', async () => {
    await applier.applyBatch(batch(0, 9));
    await applier.applyBatch(batch(2, 5));
    expect(await applier.lastApplied()).toBe(9n);
    expect(seen).toHaveLength(10);
  });

  it('dead-letters a record it cannot apply, keeps the rest of the batch, and moves past it', async () => {
    await applier.applyBatch([record(0, { n: 0 }), record(1, { poison: true }), record(2, { n: 2 })]);
    expect((await db('applier_items').orderBy('n')).map((r: { n: number }) => r.n)).toEqual([0, 2]);
    expect(await db('dead_letters').select('position', 'reason')).toEqual([
      { position: '1', reason: expect.stringMatching(/cannot apply this one/) },
    ]);
    expect(await applier.lastApplied()).toBe(2n);
  });

  it('dead-letters the record whose deferred write fails at commit time, and applies the others', async () => {
    // Each record defers a write to the end of the batch (as the history rows are); record 1's deferred write fails.
    let deferred: number[] = [];
    const deferring = new MessageApplier({
      db,
      logger: createLogger('indexer', 'silent'),
      metrics: createMetricsRegistry('indexer'),
      positionKey: 'test.deferring',
      handle: async (_trx, env) => {
        deferred.push((env.body as { n: number }).n);
      },
      beforeCommit: async (trx) => {
        const rows = deferred;
        deferred = [];
        for (const n of rows) await trx.raw('INSERT INTO applier_items (n) VALUES (? / (? - 1))', [n, n]);
      },
      onBatchStart: () => {
        deferred = [];
      },
    });
    await deferring.ensurePositionRow();
    await deferring.applyBatch(batch(0, 2));
    expect((await db('applier_items').orderBy('n')).map((r: { n: number }) => r.n)).toEqual([0, 2]);
    expect(await db('dead_letters').select('position', 'reason')).toEqual([
      { position: '1', reason: expect.stringMatching(/division by zero/) },
    ]);
    expect(await deferring.lastApplied()).toBe(2n);
  });

  it('applies each record exactly once when two indexers take the same batches at the same time', async () => {
    const other = make('test.topic');
    await Promise.all([applier.applyBatch(batch(0, 19)), other.applyBatch(batch(0, 19)), applier.applyBatch(batch(10, 29))]);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(await applier.lastApplied()).toBe(29n);
  });

  it('creates its position row when there is none yet', async () => {
    const fresh = make('another.topic');
    await fresh.applyBatch(batch(0, 2));
    expect(await fresh.lastApplied()).toBe(2n);
    expect(await applier.lastApplied()).toBeNull();
  });

  it("prepares the next record while the current record's write runs, and applies records in order", async () => {
    const log: string[] = [];
    const pipelined = new MessageApplier({
      db,
      logger: createLogger('indexer', 'silent'),
      metrics: createMetricsRegistry('indexer'),
      positionKey: 'test.pipelined',
      prepare: (env) => log.push(`prepare ${(env.body as { n: number }).n}`),
      handle: async (trx, env) => {
        const { n } = env.body as { n: number };
        log.push(`handle ${n}`);
        const writes = new WriteBatch(trx);
        await writes.add(trx('applier_items').insert({ n }));
        await writes.flush();
        log.push(`written ${n}`);
      },
    });
    await pipelined.ensurePositionRow();
    await pipelined.applyBatch(batch(0, 2));
    // Record n+1 is prepared after record n's write went out and before its answer came back.
    expect(log).toEqual([
      'prepare 0',
      'handle 0',
      'prepare 1',
      'written 0',
      'handle 1',
      'prepare 2',
      'written 1',
      'handle 2',
      'written 2',
    ]);
    expect((await db('applier_items').orderBy('n')).map((r: { n: number }) => r.n)).toEqual([0, 1, 2]);
    expect(await pipelined.lastApplied()).toBe(2n);
  });

  it("keeps the end of a long failure in the dead letter's reason: PostgreSQL's words after knex's statement", () => {
    const err = new Error(
      `insert into "mempool_txs" values ${'($1, $2), '.repeat(500)} - ON CONFLICT DO UPDATE command cannot affect row a second time`,
    );
    const reason = describeFailure(err);
    expect(reason.length).toBeLessThanOrEqual(2000);
    expect(reason.startsWith('Error: insert into "mempool_txs"')).toBe(true);
    expect(reason.endsWith('ON CONFLICT DO UPDATE command cannot affect row a second time')).toBe(true);
    expect(describeFailure(new TypeError('short'))).toBe('TypeError: short');
  });
});
