import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { encodeEnvelope, type BusRecord, type Envelope } from '@bda/bus';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { PoisonMessageError } from '../src/apply-error';
import { describeFailure, RecordApplier, type RecordApplierOptions } from '../src/record-applier';
import { WriteBatch } from '../src/write-statements';

const record = (position: number, body: unknown): BusRecord => ({
  topic: 'test.topic',
  position: BigInt(position),
  key: 'test',
  value: encodeEnvelope('/test', new Date(0), JSON.stringify(body)),
});
const batch = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => record(from + i, { n: from + i }));

describe('RecordApplier', () => {
  let db: Knex;
  let seen: number[];
  let applier: RecordApplier;

  /** Writes each record's number to `applier_items`; a body `{poison: true}` cannot be applied. */
  const make = (positionKey: string, overrides: Partial<RecordApplierOptions> = {}) =>
    new RecordApplier({
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
      ...overrides,
    });

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'applier'), maxConnections: 4 });
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
    const deferring = new RecordApplier({
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
    const pipelined = new RecordApplier({
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

  describe('progress', () => {
    const at = (position: number) => new Date(Date.UTC(2026, 10, 24, 17, 0, 0, position * 10));
    const timed = (from: number, to: number): BusRecord[] =>
      Array.from({ length: to - from + 1 }, (_, i) => ({
        ...record(from + i, { n: from + i }),
        value: encodeEnvelope('/test', at(from + i), JSON.stringify({ n: from + i })),
      }));

    it("stores the receive time of the batch's last record with the position", async () => {
      expect(await applier.storedProgress()).toEqual({ position: null, receivedAt: null });
      await applier.applyBatch(timed(0, 4));
      expect(await applier.storedProgress()).toEqual({ position: 4n, receivedAt: at(4).toISOString() });
    });

    it('keeps the newest receive time when an older batch comes again', async () => {
      await applier.applyBatch(timed(0, 9));
      await applier.applyBatch(timed(2, 5));
      expect(await applier.storedProgress()).toEqual({ position: 9n, receivedAt: at(9).toISOString() });
      expect(await applier.waitForProgress(Infinity, 0)).toEqual({ position: 9n, receivedAt: at(9).toISOString() });
    });

    it('answers at once when the record asked about is already applied', async () => {
      await applier.applyBatch(timed(0, 4));
      expect(await applier.waitForProgress(at(3).getTime(), 5_000)).toEqual({ position: 4n, receivedAt: at(4).toISOString() });
    });

    it('waits for the commit that applies the record asked about', async () => {
      await applier.applyBatch(timed(0, 2));
      let answered: unknown = null;
      const waiting = applier.waitForProgress(at(6).getTime(), 5_000).then((p) => (answered = p));
      await applier.applyBatch(timed(3, 4));
      await new Promise((r) => setTimeout(r, 60));
      expect(answered).toBeNull();
      await applier.applyBatch(timed(5, 7));
      expect(await waiting).toEqual({ position: 7n, receivedAt: at(7).toISOString() });
    });

    it('answers with the progress as it stands when the wait runs out', async () => {
      await applier.applyBatch(timed(0, 2));
      expect(await applier.waitForProgress(at(9).getTime(), 20)).toEqual({ position: 2n, receivedAt: at(2).toISOString() });
    });

    it('with a time limit, commits a long batch in several transactions and shows progress after each', async () => {
      const txids: string[] = [];
      const limited = make('test.topic', {
        maxBatchMs: 1,
        handle: async (trx: Knex.Transaction, env: Envelope) => {
          const { rows } = (await trx.raw('SELECT txid_current()::text AS id')) as { rows: Array<{ id: string }> };
          txids.push(rows[0]!.id);
          await new Promise((r) => setTimeout(r, 30));
          await trx('applier_items').insert({ n: (env.body as { n: number }).n });
        },
      });
      let itemsWhenFirstShown = -1;
      const shown = limited.waitForProgress(at(0).getTime(), 5_000).then(async (p) => {
        itemsWhenFirstShown = (await db('applier_items')).length;
        return p;
      });
      await limited.applyBatch(timed(0, 4));
      expect((await db('applier_items').orderBy('n')).map((r: { n: number }) => r.n)).toEqual([0, 1, 2, 3, 4]);
      // Each transaction ends after the record during which the limit passed: one or two records each here.
      const sizes = [...new Set(txids)].map((id) => txids.filter((t) => t === id).length);
      expect(sizes.length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
      expect(await limited.storedProgress()).toEqual({ position: 4n, receivedAt: at(4).toISOString() });
      expect((await shown).position! < 4n).toBe(true);
      expect(itemsWhenFirstShown).toBeLessThan(5);
    });

    it('sees progress another indexer process commits, as a standby replica does', async () => {
      const standby = make('test.topic');
      const waiting = standby.waitForProgress(at(5).getTime(), 5_000);
      await applier.applyBatch(timed(0, 5));
      expect(await waiting).toEqual({ position: 5n, receivedAt: at(5).toISOString() });
    });
  });
});
