/**
 * bench/gateway/deployed-reads: what the gateway as deployed costs a read (issue 26's second bar: through the gateway,
 * `/extended` and a block by height at ≥ 70 % of the api's direct throughput, the gateway sharing the machine's cores).
 * Not a test; no assertions.
 *
 * On the 4,000-block database `bench/api/chain-reads.ts` keeps (`BENCH_REUSE`, migrated first), one api (one worker,
 * as the chain-reads bench runs it) and the gateway as every user meets it: its default workers (one per core), an API
 * key, the Redis rate limiter, the access log on. `wrk` loads each endpoint directly and through the gateway in
 * alternating rounds; each round gives the ratio of the two, and the CPU per request of the api, the gateway processes
 * and PostgreSQL (user + system from `/proc`, the whole process trees, over the throughput run, divided by its requests/s × its seconds).
 *
 *   BENCH_REUSE=.tmp/bench-reads-<pid> npx tsx bench/gateway/deployed-reads.ts
 *   env: BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createDb, migrateLatest } from '@bda/db';
import { createKey } from '@bda/gateway';
import { freePorts, startPostgres, startRedis } from '@bda/test-support';
import { startService, stopService, waitForHttp, type ServiceProcess } from '../../scripts/lib/service-process';
import { filledDatabase } from '../ingest/bench-dir';
import { allProcs, treeCpuMs } from '../ingest/proc-cpu';
import { hasWrk, httpLoad, type Load } from '../http-load';
import { BenchInvalidError, formatSpread } from '../spread';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Run {
  load: Load;
  /** CPU µs per request of each process tree during the throughput run. */
  cpu: { api: number; gateway: number; postgres: number };
}

async function main(): Promise<void> {
  const reuse = process.env.BENCH_REUSE;
  if (!reuse) throw new BenchInvalidError('BENCH_REUSE=<dir of a BENCH_KEEP=1 run of bench/api/chain-reads.ts> is required');
  const stops: Array<() => Promise<void>> = [];
  const procs: ServiceProcess[] = [];
  try {
    const dir = resolve(reuse);
    const pgServer = await startPostgres({ dataDir: join(dir, 'pg'), fresh: false });
    stops.unshift(() => pgServer.stop());
    const databaseUrl = await filledDatabase(pgServer.url);
    const db = createDb({ connectionString: databaseUrl, maxConnections: 1 });
    await migrateLatest(db); // the indexer migrates on start; only the api and the gateway run here
    const tip = (await db('chain_tip').first('block_height')) as { block_height: number } | undefined;
    if (!tip || tip.block_height < 100) throw new BenchInvalidError(`reused database: tip ${tip?.block_height ?? 'none'}`);
    const redis = await startRedis({ dataDir: join(dir, `redis-${process.pid}`) });
    stops.unshift(() => redis.stop());

    const [apiPort, gatewayPort, adminPort] = (await freePorts(3)) as [number, number, number];
    const quiet = () => {};
    const common = { DATABASE_URL: databaseUrl, KAFKA_BROKERS: '', REDIS_URL: undefined };
    const api = startService(
      'api',
      { ...common, LOG_LEVEL: 'info', API_PORT: String(apiPort), API_HOST: '127.0.0.1', API_WORKERS: '1' },
      quiet,
    );
    procs.push(api);
    await waitForHttp(`http://127.0.0.1:${apiPort}/readyz`);
    const gateway = startService(
      'gateway',
      {
        ...common,
        LOG_LEVEL: 'info',
        GATEWAY_PORT: String(gatewayPort),
        GATEWAY_ADMIN_PORT: String(adminPort),
        HOST: '127.0.0.1',
        API_URLS: `http://127.0.0.1:${apiPort}`,
        NODE_RPC_URLS: 'http://127.0.0.1:9',
        RATE_LIMIT_ENABLED: 'true',
        ACCESS_LOG: 'true',
        REDIS_URL: redis.url,
      },
      quiet,
    );
    procs.push(gateway);
    await waitForHttp(`http://127.0.0.1:${gatewayPort}/healthz`);
    // A key whose own limits the benchmark never reaches: every request still takes the Redis limit path.
    const { key } = await createKey(db, { owner: 'bench', rateLimitPerMinute: 1_000_000_000, burstPerSecond: 100_000_000 });
    const height = Math.floor(tip.block_height / 2);
    await db.destroy();

    const scenarios = [
      { name: '/extended', path: '/extended' },
      { name: 'block by height', path: `/extended/v2/blocks/${height}` },
    ];
    const targets = [
      { name: 'direct', port: apiPort, headers: {} as Record<string, string> },
      { name: 'through the gateway', port: gatewayPort, headers: { 'x-api-key': key } },
    ];
    for (const s of scenarios)
      for (const t of targets) {
        const res = await fetch(`http://127.0.0.1:${t.port}${s.path}`, { headers: t.headers });
        if (res.status !== 200) throw new BenchInvalidError(`${t.name} ${s.path} answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
    console.log(
      `${availableParallelism()} cores shared by wrk, the api (one worker), the gateway (default workers), PostgreSQL and Redis; ` +
        `${hasWrk() ? 'wrk' : 'node generator'}, ${CONNECTIONS} connections, ${SECONDS} s a run; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    // The postmaster's pid: its backends (the api's and the gateway's connections) are its children.
    const postmaster = Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const cpu = () => {
      const all = allProcs();
      return {
        api: treeCpuMs(api.child.pid!, all),
        gateway: treeCpuMs(gateway.child.pid!, all),
        postgres: treeCpuMs(postmaster, all),
      };
    };
    const runs = scenarios.map(() => targets.map((): Run[] => []));
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1}/${ROUNDS}, load average ${loadavg()[0]!.toFixed(2)}`);
      for (const [si, s] of scenarios.entries())
        for (let k = 0; k < targets.length; k++) {
          const ti = (k + round) % targets.length; // alternating: each round starts with the other target
          const t = targets[ti]!;
          const url = `http://127.0.0.1:${t.port}${s.path}`;
          await httpLoad(url, { seconds: Math.min(2, SECONDS), connections: CONNECTIONS, headers: t.headers }); // warm-up
          const before = cpu();
          const load = await httpLoad(url, { seconds: SECONDS, connections: CONNECTIONS, headers: t.headers });
          const after = cpu();
          const per = (k: keyof Run['cpu']) => ((after[k] - before[k]) * 1000) / Math.max(1, load.rps * SECONDS);
          const run = { load, cpu: { api: per('api'), gateway: per('gateway'), postgres: per('postgres') } };
          runs[si]![ti]!.push(run);
          console.log(
            `  ${s.name.padEnd(16)} ${t.name.padEnd(20)} ${load.rps.toFixed(0).padStart(6)} req/s  p50 ${load.p50.toFixed(2)} ms  ` +
              `CPU µs/req: api ${run.cpu.api.toFixed(0)}, gateway ${run.cpu.gateway.toFixed(0)}, PostgreSQL ${run.cpu.postgres.toFixed(0)}` +
              `${load.errors ? `  (${load.errors} errors)` : ''}`,
          );
        }
    }
    const failing = runs.flatMap((byTarget, si) =>
      byTarget.flatMap((rs, ti) => (rs.some((r) => r.load.errors > 0) ? [`${scenarios[si]!.name} ${targets[ti]!.name}`] : [])),
    );
    if (failing.length > 0) throw new BenchInvalidError(`error answers under load: ${failing.join(', ')}`);
    console.log(
      `\n${new Date().toISOString()}: median (min–max) of ${ROUNDS} alternating round(s); ratio taken within each round`,
    );
    console.log(
      '| endpoint | direct req/s | through the gateway req/s | gateway ÷ direct (bar ≥ 70 %) | CPU µs/req through the gateway: api / gateway / PostgreSQL |',
    );
    console.log('|---|---:|---:|---:|---|');
    for (const [si, s] of scenarios.entries()) {
      const [direct, via] = runs[si]! as [Run[], Run[]];
      const ratios = direct.map((d, i) => (100 * via[i]!.load.rps) / d.load.rps);
      const c = (k: keyof Run['cpu']) =>
        formatSpread(
          via.map((r) => r.cpu[k]),
          0,
        );
      console.log(
        `| ${s.name} | ${formatSpread(
          direct.map((r) => r.load.rps),
          0,
        )} | ${formatSpread(
          via.map((r) => r.load.rps),
          0,
        )} | ` + `${formatSpread(ratios, 0)} % | ${c('api')} / ${c('gateway')} / ${c('postgres')} |`,
      );
    }
  } finally {
    for (const p of procs.reverse()) await stopService(p);
    for (const stop of stops) await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? `BENCH INVALID: ${err.message}` : err);
  process.exit(1);
});
