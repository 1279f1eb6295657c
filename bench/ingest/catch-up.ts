/**
 * bench/ingest/catch-up: the indexer alone. Posts a generated chain (blocks of STX transfers) while the indexer is
 * stopped, then starts it and times how long it takes to apply everything from the bus, in batches, as an indexer
 * catching up after downtime or a resync does. Prints ms per block and blocks/s; with `--stats` also the
 * PostgreSQL statements that took the time (pg_stat_statements).
 *
 *   npx tsx bench/ingest/catch-up.ts [--blocks 600] [--txs 50] [--bus kafka|postgres] [--mempool] [--stats] [--pg name=value,…] [--sources]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startKafka, startPostgres } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { fixtureTransferPool, generateChain } from './generate-chain';
import { useBuiltServices } from './built-services';
import { cpuMs } from './proc-cpu';
import { removeBenchDir } from './bench-dir';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '600' },
    txs: { type: 'string', default: '50' },
    bus: { type: 'string', default: 'kafka' },
    stats: { type: 'boolean', default: false },
    /** Extra PostgreSQL settings for the run, `name=value,name=value` (to measure a server setting's effect). */
    pg: { type: 'string', default: '' },
    /** Each block's transactions arrive first as a `/new_mempool_tx`, as on mainnet. */
    mempool: { type: 'boolean', default: false },
    /** Run the services from their TypeScript sources through tsx instead of the built bundles `make start` runs. */
    sources: { type: 'boolean', default: false },
  },
});
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
try {
  const chain = generateChain({ blocks, txsPerBlock: Number(values.txs), mempool: values.mempool, ...fixtureTransferPool() });
  const sys = await TestSystem.start({
    bus,
    serverUrl: pg.url,
    kafkaBrokers: kafka?.brokers ?? '',
    services: ['indexer', 'observer'],
    env: { LOG_LEVEL: 'warn' },
  });
  try {
    await sys.stopService('indexer');
    await replayEvents(chain, { observerUrl: sys.observerUrl });
    if (values.stats) {
      await sys.db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await sys.db.raw('SELECT pg_stat_statements_reset()');
      await sys.db.raw("SELECT pg_stat_reset_shared('wal')");
    }
    const t0 = performance.now();
    await sys.startService('indexer');
    const t1 = performance.now();
    const indexerPid = sys.procs.get('indexer')!.child.pid!;
    const cpu0 = cpuMs(indexerPid);
    await sys.waitForAppliedFromDb(600_000, 2);
    const ms = performance.now() - t1;
    const indexerCpu = cpuMs(indexerPid) - cpu0;
    const dead = (await sys.db('dead_letters').count('* as n')) as Array<{ n: string }>;
    const n = dead[0]?.n ?? '0';
    console.log(
      `${bus}: ${blocks} blocks of ${values.txs} transactions applied in ${(ms / 1000).toFixed(2)} s after a ${(t1 - t0).toFixed(0)} ms start: ` +
        `${(ms / blocks).toFixed(2)} ms a block, ${((blocks * 1000) / ms).toFixed(1)} blocks/s, indexer CPU ${(indexerCpu / blocks).toFixed(2)} ms a block (dead letters: ${n})`,
    );
    if (values.stats) {
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
  } finally {
    await sys.stop();
  }
} finally {
  await kafka?.stop();
  await pg.stop();
  removeBenchDir(tmp);
}
