import type { Knex } from 'knex';
import { runPrepared, runWhileNextWriteWaits } from './write-statements';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { decodeEnvelope, peekReceivedAt, type BusRecord, type Envelope } from '@bda/bus';
import { isRetriable } from './apply-error';
import { fenceDataEpoch, type DataFence } from './data-epoch';

interface BatchOutcome {
  counts: Array<['applied' | 'dead', string]>;
  last: bigint | null;
  /** The last record the transaction covered: the end of the batch, or where the time limit cut it. */
  through: BusRecord;
}

/** How far a topic is applied: its last record's position and when the observer received that record. */
export interface AppliedProgress {
  /** Null before anything was applied. */
  position: bigint | null;
  /** The record's envelope `received_at` (ISO, millisecond precision); null when unknown. */
  receivedAt: string | null;
}

/** Whether everything received up to `coversMs` (observer clock, ms since the epoch) is applied at `progress`. */
export function progressCovers(progress: AppliedProgress, coversMs: number): boolean {
  return progress.receivedAt !== null && Date.parse(progress.receivedAt) >= coversMs;
}

/** How often a wait for progress re-reads the stored position (progress committed by another indexer process). */
const STORED_PROGRESS_POLL_MS = 50;

/** Applies one decoded envelope inside the given transaction. */
export type EnvelopeHandler = (trx: Knex.Transaction, envelope: Envelope) => Promise<void>;

export interface RecordApplierOptions {
  db: Knex;
  logger: Logger;
  metrics: Registry;
  /** Topic name as stored in consumer_positions (without any test prefix). */
  positionKey: string;
  handle: EnvelopeHandler;
  /**
   * Pure work on a record before it is applied (decoding, building rows; no database), done while PostgreSQL runs
   * the previous record's write. Must not throw: what cannot be prepared is left to `handle`.
   */
  prepare?: (envelope: Envelope) => void;
  /** Runs inside the batch's transaction after its last record, just before it commits. */
  beforeCommit?: (trx: Knex.Transaction) => Promise<void>;
  /** Runs before each attempt at a batch (state kept across records must start empty). */
  onBatchStart?: () => void;
  /**
   * A transaction ends after the record during which it reached this many ms, even with records of the batch left;
   * they go in the next one. Progress (the tip, `/progress`) then shows at least this often while the indexer works
   * through a backlog. None: one transaction per batch.
   */
  maxBatchMs?: number;
  /**
   * The answer fence (ADR 0048): when set, every transaction that applies a record raises `data_epoch` as its last
   * statement, after `beforeCommit`, and commits once this has resolved with the new epoch. None: the epoch is left
   * alone.
   */
  fence?: DataFence;
}

/**
 * Applies bus records exactly once. A batch runs in one transaction that also moves the consumed
 * position, so a crash anywhere leaves either all of it or none of it. Each record runs inside its own
 * savepoint: a record that cannot be applied is rolled back alone and stored as a dead letter with its
 * reason, and the stream goes on. Savepoints cost round trips, so a batch first runs without them and
 * is redone record by record only when something in it fails. Records at or below the stored position
 * are skipped (redelivery).
 */
/**
 * The first statement of every batch, in one round trip: turns off the wait for the WAL flush (the bus is the
 * durable source of truth and the position commits with the data, so a commit lost in a PostgreSQL crash is simply
 * consumed again), locks the position row, reads where the previous batch ended (`previous`, from before this
 * update), and moves the position to the batch's last record. Writing the position first is safe: the transaction
 * either commits every record of the batch (applied or dead-lettered) or none. When another indexer holds the lock,
 * this waits and then sees that indexer's committed position. `received_at` follows the position: the receive time of
 * the batch's last record (what `/progress` reports).
 */
const TAKE_POSITION_SQL = `UPDATE consumer_positions c
  SET position = GREATEST(c.position, $2::bigint), updated_at = now(),
    received_at = CASE WHEN $2::bigint > c.position THEN $3::timestamptz ELSE c.received_at END
  FROM (SELECT position, set_config('synchronous_commit', 'off', true) FROM consumer_positions WHERE topic = $1 FOR UPDATE) previous
  WHERE c.topic = $1
  RETURNING previous.position AS previous`;

/** Where a transaction cut short by the time limit ends (its row is locked by TAKE_POSITION_SQL). */
const SET_POSITION_SQL = 'UPDATE consumer_positions SET position = $2::bigint, received_at = $3::timestamptz WHERE topic = $1';

export class RecordApplier {
  private readonly applied: Counter<'path'>;
  private readonly deadLetters: Counter<'path'>;
  private readonly batchSeconds: Histogram;
  private readonly position: Gauge;
  /** What this process last committed; never ahead of the database. */
  private committed: AppliedProgress = { position: null, receivedAt: null };
  private readonly commitWaiters = new Set<() => void>();

  constructor(private readonly opts: RecordApplierOptions) {
    // One applier per topic shares the registry: the second one reuses the metrics the first registered.
    const metric = <T>(name: string, create: () => T): T => (opts.metrics.getSingleMetric(name) as T | undefined) ?? create();
    this.applied = metric(
      'indexer_messages_applied_total',
      () =>
        new Counter({
          name: 'indexer_messages_applied_total',
          help: 'Bus messages applied, by observer path',
          labelNames: ['path'],
          registers: [opts.metrics],
        }),
    );
    this.deadLetters = metric(
      'indexer_dead_letters_total',
      () =>
        new Counter({
          name: 'indexer_dead_letters_total',
          help: 'Bus messages that could not be applied and were dead-lettered',
          labelNames: ['path'],
          registers: [opts.metrics],
        }),
    );
    this.batchSeconds = metric(
      'indexer_batch_seconds',
      () =>
        new Histogram({
          name: 'indexer_batch_seconds',
          help: 'Time to apply one batch of bus messages',
          buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers: [opts.metrics],
        }),
    );
    this.position = metric(
      'indexer_position',
      () =>
        new Gauge({
          name: 'indexer_position',
          help: 'Last applied bus position',
          labelNames: ['topic'],
          registers: [opts.metrics],
        }),
    );
  }

  /**
   * Makes sure the position row exists, so that every batch — also the very first — locks it: two
   * indexers overlapping during a rebalance then apply one after the other and skip what is done.
   */
  async ensurePositionRow(): Promise<void> {
    await this.opts
      .db('consumer_positions')
      .insert({ topic: this.opts.positionKey, position: '-1' })
      .onConflict('topic')
      .ignore();
  }

  /** The position of the last applied record, or null when nothing was applied yet. */
  async lastApplied(): Promise<bigint | null> {
    const row = await this.opts
      .db('consumer_positions')
      .where({ topic: this.opts.positionKey })
      .first<{ position: string } | undefined>();
    return row && row.position !== '-1' ? BigInt(row.position) : null;
  }

  /** The stored progress: the position row as committed by whichever indexer process applied it. */
  async storedProgress(): Promise<AppliedProgress> {
    const row = await this.opts
      .db('consumer_positions')
      .where({ topic: this.opts.positionKey })
      .first<{ position: string; received_at: string | null } | undefined>(
        'position',
        this.opts.db.raw(`to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at`),
      );
    if (!row || row.position === '-1') return { position: null, receivedAt: null };
    return { position: BigInt(row.position), receivedAt: row.received_at };
  }

  /**
   * The progress once the record received at `coversMs` (observer clock, ms since the epoch) or later is applied, or
   * the progress as it stands after `waitMs`, whichever comes first. Wakes on this process's own commits; progress a
   * different indexer process commits (this one a standby) is seen by re-reading the position row every 50 ms.
   */
  async waitForProgress(coversMs: number, waitMs: number): Promise<AppliedProgress> {
    const deadline = Date.now() + waitMs;
    const covered = (p: AppliedProgress) => progressCovers(p, coversMs);
    const newer = (a: AppliedProgress, b: AppliedProgress) =>
      b.position !== null && (a.position === null || b.position > a.position) ? b : a;
    let best = this.committed;
    let readAt = -Infinity;
    for (;;) {
      if (covered(best)) return best;
      if (Date.now() - readAt >= STORED_PROGRESS_POLL_MS) {
        readAt = Date.now();
        best = newer(best, await this.storedProgress());
        if (covered(best)) return best;
      }
      const left = deadline - Date.now();
      if (left <= 0) return best;
      await this.nextCommit(Math.min(left, Math.max(1, STORED_PROGRESS_POLL_MS - (Date.now() - readAt))));
      best = newer(best, this.committed);
    }
  }

  private nextCommit(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.commitWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      this.commitWaiters.add(wake);
    });
  }

  /**
   * Applies `records` (in log order). They go in one transaction, or in several when `maxBatchMs` is set and the
   * first runs longer: each transaction then ends after the record during which the limit passed, and the rest go in
   * the next one.
   */
  async applyBatch(records: BusRecord[]): Promise<void> {
    let rest = records;
    while (rest.length > 0) rest = await this.applyPart(rest);
  }

  /** One transaction over the head of `records`; returns the records it left for the next one. */
  private async applyPart(records: BusRecord[]): Promise<BusRecord[]> {
    const end = this.batchSeconds.startTimer();
    let outcome: BatchOutcome;
    try {
      // Fast path: the whole batch in one transaction, no savepoints.
      outcome = await this.runBatch(records, false);
    } catch (err) {
      if (isRetriable(err)) throw err;
      // Some record cannot be applied: redo the batch with a savepoint per record, so that record alone
      // is rolled back and dead-lettered.
      outcome = await this.runBatch(records, true);
    }
    end();
    const through = outcome.through;
    if (this.committed.position === null || through.position > this.committed.position) {
      this.committed = { position: through.position, receivedAt: peekReceivedAt(through.value) };
      for (const wake of this.commitWaiters) wake();
      this.commitWaiters.clear();
    }
    for (const [kind, path] of outcome.counts) (kind === 'applied' ? this.applied : this.deadLetters).inc({ path });
    if (outcome.last !== null) this.position.set({ topic: this.opts.positionKey }, Number(outcome.last));
    return records.slice(records.indexOf(through) + 1);
  }

  private async runBatch(records: BusRecord[], isolate: boolean): Promise<BatchOutcome> {
    const counts: BatchOutcome['counts'] = [];
    let last: bigint | null = null;
    let through = records[records.length - 1]!;
    const deadline = !isolate && this.opts.maxBatchMs !== undefined ? performance.now() + this.opts.maxBatchMs : Infinity;
    this.opts.onBatchStart?.();
    await this.opts.db.transaction(async (trx) => {
      const tail = records[records.length - 1]!;
      const params = [this.opts.positionKey, tail.position.toString(), peekReceivedAt(tail.value)];
      let [row] = await runPrepared<{ previous: string }>(trx, TAKE_POSITION_SQL, params);
      if (!row) {
        // No position row yet (`ensurePositionRow` normally made it): make it, then take it.
        await trx('consumer_positions').insert({ topic: this.opts.positionKey, position: '-1' }).onConflict('topic').ignore();
        [row] = await runPrepared<{ previous: string }>(trx, TAKE_POSITION_SQL, params);
      }
      const stored = BigInt(row!.previous);
      const todo = records.filter((r) => r.position > stored);
      if (isolate) {
        for (const record of todo) {
          counts.push(await this.applyIsolated(trx, record));
          last = record.position;
        }
      } else {
        // Pipelined: while a record's write runs in PostgreSQL, the next record is decoded and prepared here.
        let next = todo.length > 0 ? this.decodeAndPrepare(todo[0]!) : undefined;
        for (let i = 0; i < todo.length; i++) {
          const envelope = next!;
          if (envelope instanceof Error) throw envelope;
          // Past the time limit, this record is the transaction's last: nothing more is prepared for it.
          const overdue = performance.now() >= deadline;
          const following = overdue ? undefined : todo[i + 1];
          let ahead: Envelope | Error | undefined;
          if (following) runWhileNextWriteWaits(trx, () => (ahead = this.decodeAndPrepare(following)));
          try {
            await this.opts.handle(trx, envelope);
          } finally {
            runWhileNextWriteWaits(trx, undefined);
          }
          next = following ? (ahead ?? this.decodeAndPrepare(following)) : undefined;
          counts.push(['applied', envelope.path]);
          last = todo[i]!.position;
          if (overdue && i < todo.length - 1) {
            through = todo[i]!;
            // The first statement moved the position to the end of `records`: back to where this transaction ends.
            await runPrepared(trx, SET_POSITION_SQL, [this.opts.positionKey, last.toString(), peekReceivedAt(through.value)]);
            break;
          }
        }
      }
      await this.opts.beforeCommit?.(trx);
      // A batch already applied (redelivered) changes nothing the api reads but the position: no new epoch, so the
      // gateways keep what they kept.
      if (todo.length > 0) await fenceDataEpoch(trx, this.opts.fence);
    });
    return { counts, last, through };
  }

  /** The record's envelope, prepared; or the error decoding it gave (thrown when its turn comes). */
  private decodeAndPrepare(record: BusRecord): Envelope | Error {
    let envelope: Envelope;
    try {
      envelope = decodeEnvelope(record.value);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    this.opts.prepare?.(envelope);
    return envelope;
  }

  private async applyIsolated(trx: Knex.Transaction, record: BusRecord): Promise<['applied' | 'dead', string]> {
    let envelope: Envelope;
    try {
      envelope = decodeEnvelope(record.value);
    } catch (err) {
      await this.recordDeadLetter(trx, record, null, `unreadable envelope: ${(err as Error).message}`);
      return ['dead', 'unreadable'];
    }
    try {
      await trx.transaction(async (sp) => {
        await this.opts.handle(sp, envelope);
        // On this path nothing deferred may outlive its record: a later record's savepoint could roll it back. Inside
        // the savepoint, so that a deferred write that fails rolls back with its record, which is then dead-lettered.
        await this.opts.beforeCommit?.(sp);
      });
      return ['applied', envelope.path];
    } catch (err) {
      if (isRetriable(err)) throw err;
      this.opts.onBatchStart?.();
      this.opts.logger.error({ err, position: record.position.toString(), path: envelope.path }, 'message dead-lettered');
      await this.recordDeadLetter(trx, record, envelope.path, describeFailure(err));
      return ['dead', envelope.path];
    }
  }

  private async recordDeadLetter(trx: Knex.Transaction, record: BusRecord, path: string | null, reason: string): Promise<void> {
    await trx('dead_letters')
      .insert({ topic: this.opts.positionKey, position: record.position.toString(), path, reason, value: record.value })
      .onConflict(['topic', 'position'])
      .ignore();
  }
}

/**
 * A dead letter's reason, at most 2,000 characters. A longer message keeps its start and its end: a database error
 * from knex is the whole statement followed by PostgreSQL's own words, and those are what an operator needs.
 */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length <= 2000 ? text : `${text.slice(0, 1000)} … ${text.slice(-997)}`;
}
