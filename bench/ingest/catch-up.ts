/**
 * bench/ingest/catch-up: the indexer alone. Posts a generated chain (blocks of STX transfers) while the indexer is
 * stopped, then starts it and times how long it takes to apply everything from the bus, in batches, as an indexer
 * catching up after downtime or a resync does.
 *
 * The clock starts just before the indexer process is spawned, so no event can be consumed before it: the interval
 * "from spawn" covers the process's start-up (loading, connecting, joining the group), then every batch until the
 * stored position reaches the bus head. A second interval starts when the first batch is seen committed (the stored
 * bus position moves) and covers the blocks applied after it: the apply rate without the start-up. CPU per block
 * counts the indexer process (its whole life), PostgreSQL (the postmaster and every backend, the bench's own watching
 * connection left out) and the Kafka broker over the same window. Each run is a fresh system; `--runs` runs give the
 * median and the spread (min–max). A run that dead-letters anything or ends on another tip than the chain's last
 * block fails the bench (exit 1, no figures).
 *
 *   npx tsx bench/ingest/catch-up.ts [--blocks 600] [--txs 50] [--runs 3] [--bus kafka|postgres] [--mempool] [--stats] [--pg name=value,…] [--sources] [--fence]
 *
 * `--fence`: the indexer fences every transaction on a real Redis (ADR 0048, `REDIS_URL`), with one gateway worker's
 * `FenceHolder` (in this process) holding a lease and acknowledging each fence: what the answer fence costs ingestion.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FenceHolder } from '@bda/answer-fence';
import { startKafka, startPostgres, startRedis } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { BenchInvalidError, formatSpread } from '../spread';
import { AppliedWatch } from './applied-watch';
import { checkIngested, expectedTip } from './check-ingested';
import { fixtureTransferPool, generateChain } from './generate-chain';
import { useBuiltServices } from './built-services';
import { allProcs, kafkaBrokerPid, postmasterPid, startCpuWindow, treeCpuMs } from './proc-cpu';
import { removeBenchDir } from './bench-dir';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '600' },
    txs: { type: 'string', default: '50' },
    /** Fresh systems measured one after the other: the median and the spread of their figures are printed. */
    runs: { type: 'string', default: '3' },
    bus: { type: 'string', default: 'kafka' },
    stats: { type: 'boolean', default: false },
    /** Extra PostgreSQL settings for the run, `name=value,name=value` (to measure a server setting's effect). */
    pg: { type: 'string', default: '' },
    /** Each block's transactions arrive first as a `/new_mempool_tx`, as on mainnet. */
    mempool: { type: 'boolean', default: false },
    /** Run the services from their TypeScript sources through tsx instead of the built bundles `make start` runs. */
    sources: { type: 'boolean', default: false },
    /** The indexer fences every transaction on a real Redis, a holder acknowledging (ADR 0048). */
    fence: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'npx tsx bench/ingest/catch-up.ts [--blocks 600] [--txs 50] [--runs 3] [--bus kafka|postgres] [--mempool] [--stats] [--pg name=value,…] [--sources] [--fence]',
  );
  process.exit(0);
}

interface Run {
  /** From just before the indexer's spawn to the stored position at the bus head. */
  fromSpawnMs: number;
  /** Spawn to `/readyz`. */
  startMs: number;
  /** From the first committed batch to the head, and the blocks applied in that interval. */
  fromFirstMs: number;
  blocksAfterFirst: number;
  cpu: { indexer: number; postgres: number; kafka: number };
}

const bus = values.bus as 'kafka' | 'postgres';
const blocks = Number(values.blocks);
const tmp = join(ROOT, '.tmp', `bench-catch-up-${process.pid}`);
console.log(`measuring ${await useBuiltServices(tmp, values.sources!)}`);
const pg = await startPostgres({
  dataDir: join(tmp, 'pg'),
  fresh: true,
  settings: {
    ...(values.stats ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } : {}),
    ...Object.fromEntries(
      values
        .pg!.split(',')
        .filter(Boolean)
        .map((kv) => kv.split('=') as [string, string]),
    ),
  },
});
const kafka = bus === 'kafka' ? await startKafka({ dataDir: join(tmp, 'kafka'), fresh: true }) : null;
const redis = values.fence ? await startRedis({ dataDir: join(tmp, 'redis') }) : null;
let failed = false;
try {
  const runs: Run[] = [];
  const total = Number(values.runs);
  for (let i = 1; i <= total; i++) {
    const run = await measureOnce(i === total && values.stats!);
    runs.push(run);
    console.log(
      `run ${i}/${total}: ${(run.fromSpawnMs / blocks).toFixed(2)} ms a block from spawn (start-up ${run.startMs.toFixed(0)} ms), ` +
        `${(run.fromFirstMs / run.blocksAfterFirst).toFixed(2)} ms a block from the first commit (${run.blocksAfterFirst} blocks), ` +
        `CPU a block: indexer ${(run.cpu.indexer / blocks).toFixed(2)}, PostgreSQL ${(run.cpu.postgres / blocks).toFixed(2)}, Kafka ${(run.cpu.kafka / blocks).toFixed(2)} ms`,
    );
  }
  const f = (xs: number[], digits = 2) => formatSpread(xs, digits);
  console.log(
    `\n${bus}, ${blocks} blocks of ${values.txs} transactions${values.mempool ? ' (announced to the mempool first)' : ''}` +
      `${values.fence ? ', every transaction fenced (a holder acknowledging)' : ''}, ` +
      `median (min–max) of ${runs.length} run(s), no dead letters, tip = the chain's last block:`,
  );
  console.log(`  ms a block, from the indexer's spawn     ${f(runs.map((r) => r.fromSpawnMs / blocks))}`);
  console.log(`  ms a block, from the first commit        ${f(runs.map((r) => r.fromFirstMs / r.blocksAfterFirst))}`);
  console.log(
    `  blocks/s, from the first commit          ${f(
      runs.map((r) => (r.blocksAfterFirst * 1000) / r.fromFirstMs),
      1,
    )}`,
  );
  console.log(
    `  start-up (spawn to /readyz), ms          ${f(
      runs.map((r) => r.startMs),
      0,
    )}`,
  );
  const cpu = (r: Run) => r.cpu.indexer + r.cpu.postgres + r.cpu.kafka;
  console.log(`  CPU ms a block, indexer+PostgreSQL+Kafka ${f(runs.map((r) => cpu(r) / blocks))}`);
  console.log(`    indexer (start-up included)            ${f(runs.map((r) => r.cpu.indexer / blocks))}`);
  console.log(`    PostgreSQL                             ${f(runs.map((r) => r.cpu.postgres / blocks))}`);
  if (kafka) console.log(`    Kafka broker                           ${f(runs.map((r) => r.cpu.kafka / blocks))}`);
} catch (err) {
  failed = true;
  console.error(err instanceof BenchInvalidError ? err.message : err);
} finally {
  await redis?.stop();
  await kafka?.stop();
  await pg.stop();
  removeBenchDir(tmp);
}
if (failed) process.exit(1);

async function measureOnce(stats: boolean): Promise<Run> {
  const chain = generateChain({ blocks, txsPerBlock: Number(values.txs), mempool: values.mempool, ...fixtureTransferPool() });
  // Each run's database starts at epoch 0: its own fence keys.
  const fencePrefix = `bench:fence:${process.pid}:${performance.now()}:`;
  const holder = redis ? new FenceHolder({ url: redis.url, prefix: fencePrefix }) : null;
  holder?.start();
  const sys = await TestSystem.start({
    bus,
    serverUrl: pg.url,
    kafkaBrokers: kafka?.brokers ?? '',
    services: ['indexer', 'observer'],
    env: { LOG_LEVEL: 'warn', ...(redis ? { REDIS_URL: redis.url, ANSWER_FENCE_PREFIX: fencePrefix } : {}) },
  });
  const watch = await AppliedWatch.open(sys.databaseUrl);
  try {
    await sys.stopService('indexer');
    await replayEvents(chain, { observerUrl: sys.observerUrl });
    if (stats) {
      await sys.db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await sys.db.raw('SELECT pg_stat_statements_reset()');
      await sys.db.raw("SELECT pg_stat_reset_shared('wal')");
    }
    const before = await watch.progress();
    const roots = { postgres: postmasterPid(join(tmp, 'pg')), ...(kafka ? { kafka: kafkaBrokerPid(kafka.dataDir) } : {}) };
    // The window opens before the indexer exists: nothing can be consumed before the clock starts.
    const window = startCpuWindow(roots, new Set([watch.backendPid]));
    const t0 = performance.now();
    const first = watch.firstProgress(before, 600_000);
    // Awaited below; if the start fails first, its later rejection (the connection closed) is not an unhandled one.
    first.catch(() => undefined);
    await sys.startService('indexer');
    const tReady = performance.now();
    const indexerPid = sys.procs.get('indexer')!.child.pid!;
    await watch.waitForHead(sys.indexerUrl, 600_000);
    const tEnd = performance.now();
    const cpu = window.stop();
    // The indexer did not exist when the window opened: its whole life is in the window.
    const indexerCpu = treeCpuMs(indexerPid, allProcs());
    const { at: tFirst, blocks: blocksAtFirst } = await first;
    await checkIngested(sys.db, expectedTip(chain));
    if (holder) {
      // The work was done: the transactions were fenced, and the holder heard the last one.
      const epoch = Number((await sys.db('data_epoch').first<{ epoch: string }>('epoch'))!.epoch);
      if (epoch < 2 || holder.servingEpoch() !== epoch) {
        throw new BenchInvalidError(`fencing not done: data_epoch ${epoch}, holder at ${holder.servingEpoch()}`);
      }
    }
    if (stats) await printStats(sys);
    return {
      fromSpawnMs: tEnd - t0,
      startMs: tReady - t0,
      fromFirstMs: tEnd - tFirst,
      blocksAfterFirst: blocks - blocksAtFirst,
      cpu: { indexer: indexerCpu, postgres: cpu.postgres ?? 0, kafka: cpu.kafka ?? 0 },
    };
  } finally {
    await watch.close();
    await sys.stop();
    await holder?.stop();
  }
}

async function printStats(sys: TestSystem): Promise<void> {
  const top = await sys.db.raw(
    `SELECT calls, round(total_exec_time::numeric, 1) AS exec_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
     FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 8`,
  );
  console.table(top.rows);
  // What PostgreSQL wrote to its write-ahead log for the catch-up: full page images are pages logged whole, the
  // first change to each after a checkpoint.
  const wal = (await sys.db.raw('SELECT wal_records, wal_fpi, wal_bytes, wal_write, wal_sync FROM pg_stat_wal'))
    .rows[0] as Record<string, string>;
  console.log(
    `WAL: ${(Number(wal.wal_bytes) / blocks / 1024).toFixed(1)} KB a block (${(Number(wal.wal_records) / blocks).toFixed(0)} records, ` +
      `${(Number(wal.wal_fpi) / blocks).toFixed(1)} full page images), ${wal.wal_write} writes, ${wal.wal_sync} syncs`,
  );
}
