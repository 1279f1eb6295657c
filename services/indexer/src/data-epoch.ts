import type { Knex } from 'knex';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { FenceOutcome, FenceWriter } from '@bda/answer-fence';
import { migrateLatest } from '@bda/db';
import { runPrepared } from './write-statements';

/**
 * Called with the epoch a writing transaction gives the data, after its last write and right before its COMMIT;
 * resolves once no gateway worker may serve an answer of an older epoch (ADR 0048). Never rejects.
 */
export type DataFence = (epoch: number) => Promise<unknown>;

/**
 * Raises the data epoch. The row lock it takes is held until the commit, so every writer's fence and commit follow
 * one another in epoch order: it is the transaction's last statement.
 */
const BUMP_DATA_EPOCH_SQL = 'UPDATE data_epoch SET epoch = epoch + 1 RETURNING epoch';

/**
 * Ends a writing transaction of what the api answers: raises `data_epoch` and fences the new epoch, so that the commit
 * that follows never becomes visible while a gateway worker may still serve an answer read before it. Call it last,
 * right before the transaction commits. Without a fence nothing is done (no gateway keeps answers then).
 */
export async function fenceDataEpoch(trx: Knex.Transaction, fence: DataFence | undefined): Promise<void> {
  if (!fence) return;
  const [row] = await runPrepared<{ epoch: string }>(trx, BUMP_DATA_EPOCH_SQL, []);
  await fence(Number(row!.epoch));
}

/**
 * Before migrations run: fences the epoch after the database's, in Redis only. Every gateway worker then serves and
 * keeps nothing until a transaction gives the database that epoch (`fenceNow` after the migrations): no answer read
 * while a migration changes the data is ever kept, and none kept before is served (ADR 0048). A database without the
 * table yet (first start) has no epoch any gateway could have kept an answer under. Never throws.
 */
export async function fenceBeforeMigrations(db: Knex, fence: DataFence): Promise<void> {
  let row: { epoch: string } | undefined;
  try {
    if (!(await db.schema.hasTable('data_epoch'))) return;
    row = (await db('data_epoch').first('epoch')) as { epoch: string } | undefined;
  } catch {
    return; // the migrations will say what is wrong with the database
  }
  if (row) await fence(Number(row.epoch) + 1);
}

/**
 * The migrations, fenced around (ADR 0048): the epoch after the database's before them, a transaction raising it
 * after them. Without a fence, just the migrations.
 */
export async function migrateFenced(db: Knex, fence: DataFence | undefined): Promise<void> {
  if (fence) await fenceBeforeMigrations(db, fence);
  await migrateLatest(db);
  if (fence) await fenceNow(db, fence);
}

/**
 * A transaction of its own that only raises the epoch and fences it. For what changed the api's answers without a
 * fence of its own: the migrations run at start-up (their transactions are knex's), so that answers kept before them
 * stop being served as soon as the writer runs (not exactly at their commit: the gap is the start-up's).
 */
export async function fenceNow(db: Knex, fence: DataFence): Promise<void> {
  await db.transaction((trx) => fenceDataEpoch(trx, fence));
}

/**
 * `writer.fence`, counted by outcome (`indexer_answer_fence_total`) and timed (`indexer_answer_fence_seconds`: how long
 * the commit waited for the gateway's workers).
 */
export function meteredFence(writer: Pick<FenceWriter, 'fence'>, metrics: Registry): DataFence {
  const metric = <T>(name: string, create: () => T): T => (metrics.getSingleMetric(name) as T | undefined) ?? create();
  const outcomes = metric(
    'indexer_answer_fence_total',
    () =>
      new Counter<'outcome'>({
        name: 'indexer_answer_fence_total',
        help: 'Answer fences before a commit, by outcome (acknowledged, lapsed: a lease ran out instead, unreachable)',
        labelNames: ['outcome'],
        registers: [metrics],
      }),
  );
  const seconds = metric(
    'indexer_answer_fence_seconds',
    () =>
      new Histogram({
        name: 'indexer_answer_fence_seconds',
        help: 'Time a commit waited for its answer fence',
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [metrics],
      }),
  );
  return async (epoch) => {
    const end = seconds.startTimer();
    const outcome: FenceOutcome = await writer.fence(epoch);
    end();
    outcomes.inc({ outcome });
    return outcome;
  };
}
