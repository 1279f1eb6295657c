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
 *        BENCH_GATEWAYS='as deployed;1 worker:GATEWAY_WORKERS=1;no access log:ACCESS_LOG=false'
 *            more gateways in the same rounds, each `label:NAME=value,NAME=value` over the deployed configuration
 *            (the first one is the bar's; BDA_NODE_ARGS=<flags> gives node flags); default: `as deployed` alone
 *        BENCH_BASELINE=<dir>   the gateway under <dir> (e.g. `git archive <commit> services/gateway | tar -x -C <dir>`),
 *            as deployed, in the same rounds: `as deployed (before)`
 *        BENCH_BUNDLE=<dir>     the gateway under test from a built bundle (`node scripts/build.mjs --outdir <dir>`), as
 *                               production runs it; a BENCH_BASELINE holding `gateway.mjs` is a bundle too
 *        BENCH_CPU_PROF=<dir>   V8 CPU profiles of the gateways' processes (`bench/proxy/profile-summary.ts`)
 *        BENCH_ENDPOINTS=extended,block   (also `blocks`: every block by height in turn, rarely the same twice)
 *        BENCH_NGINX=0          leave out the `nginx` door (Debian's nginx, one worker per core, keep-alive upstream,
 *                               no access log, no key, no limit), measured by default when nginx is installed: the
 *                               cheapest HTTP door, in the same rounds, to show what any proxy hop costs here
 *        BENCH_INDEXER=0        no indexer: nothing fences, so no gateway keeps answers (ADR 0048); by default the
 *                               indexer runs as deployed (idle: nothing new arrives), fencing on the same Redis
 *        BENCH_COMMIT_MS=<ms>   a stand-in for the indexer's commits during the runs: every <ms>, a transaction raises
 *                               `data_epoch` and fences it before committing, as each indexer transaction does, so
 *                               the gateways drop what they kept and ask the api again
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { FenceWriter } from '@bda/answer-fence';
import { createDb, migrateLatest } from '@bda/db';
import { createKey } from '@bda/gateway';
import { fenceNow } from '@bda/indexer';
import { freePorts, startPostgres, startRedis } from '@bda/test-support';
import { ROOT, startService, stopService, waitForHttp, type ServiceProcess } from '../../scripts/lib/service-process';
import { filledDatabase } from '../ingest/bench-dir';
import { allProcs, processTree, treeCpuMs, type ProcStat } from '../ingest/proc-cpu';
import { hasWrk, httpLoad, type Load } from '../http-load';
import { BenchInvalidError, formatSpread } from '../spread';
import { nginxConfig } from '../nginx';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
const ENDPOINTS = new Set((process.env.BENCH_ENDPOINTS ?? 'extended,block').split(','));
const WITH_INDEXER = process.env.BENCH_INDEXER !== '0';
const COMMIT_MS = process.env.BENCH_COMMIT_MS ? Number(process.env.BENCH_COMMIT_MS) : undefined;

/** Whether the `nginx` door is measured: nginx installed and not left out with BENCH_NGINX=0. */
function withNginx(): boolean {
  if (process.env.BENCH_NGINX === '0') return false;
  try {
    execFileSync('sh', ['-c', 'command -v nginx'], { stdio: 'ignore' });
    return true;
  } catch {
    console.log('nginx not found (apt-get install -y nginx-light): the nginx door is left out');
    return false;
  }
}

/** A gateway to measure: a label and its settings over the deployed ones. */
interface Variant {
  label: string;
  env: Record<string, string>;
  /** The directory holding its `services/gateway/src/main.ts` (default: this working tree). */
  root: string;
}

function variants(): Variant[] {
  const spec = process.env.BENCH_GATEWAYS ?? 'as deployed';
  const out = spec.split(';').map((v): Variant => {
    const colon = v.indexOf(':');
    const label = (colon === -1 ? v : v.slice(0, colon)).trim();
    const env: Record<string, string> = {};
    if (colon !== -1)
      for (const pair of v
        .slice(colon + 1)
        .split(',')
        .filter(Boolean)) {
        const eq = pair.indexOf('=');
        if (eq === -1) throw new BenchInvalidError(`BENCH_GATEWAYS: ${pair} is not NAME=value`);
        env[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
      }
    return { label, env, root: process.env.BENCH_BUNDLE ? resolve(process.env.BENCH_BUNDLE) : ROOT };
  });
  if (BASELINE) out.push({ label: `${out[0]!.label} (before)`, env: out[0]!.env, root: BASELINE });
  return out;
}

interface Run {
  load: Load;
  /** CPU µs per request of each process tree during the throughput run (gateway: all its processes; primary: alone). */
  cpu: { api: number; gateway: number; primary: number; postgres: number };
  /** Context switches per request of the gateway's processes, all their threads (voluntary: waits, wake-ups). */
  switches: number;
}

/** Context switches (voluntary + involuntary) so far of every thread of a process tree. */
function treeSwitches(root: number, procs: Map<number, ProcStat>): number {
  let n = 0;
  for (const pid of processTree(root, procs)) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone
    }
    for (const tid of tasks) {
      try {
        const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
        for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) n += Number(m[1]);
      } catch {
        // gone
      }
    }
  }
  return n;
}

/** A gateway process from `root`'s sources, its log lines read and dropped (a pipe, as a container's stdout). */
function startGatewayAt(root: string, env: NodeJS.ProcessEnv): ServiceProcess {
  const prof = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
  // BDA_NODE_ARGS: node flags of this gateway (its cluster workers inherit them), e.g. `--single-threaded-gc`.
  const flags = (env.BDA_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  // A bundle directory (scripts/build.mjs, BENCH_BUNDLE or a BENCH_BASELINE holding gateway.mjs) runs with plain node.
  const entry = existsSync(join(root, 'gateway.mjs'))
    ? [join(root, 'gateway.mjs')]
    : ['--import', 'tsx', join(root, 'services/gateway/src/main.ts')];
  const child = spawn(process.execPath, [...prof, ...flags, ...entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.resume();
  child.stderr!.resume();
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { name: 'gateway', child, exited };
}

/**
 * Every `ms`, one transaction raises `data_epoch` and fences the new epoch before it commits: what each indexer
 * transaction does last (RecordApplier), without changing anything else the api reads.
 */
async function startCommits(
  databaseUrl: string,
  redisUrl: string,
  ms: number,
): Promise<{ stop(): Promise<void>; count(): number; fenceMs(): number[] }> {
  const db = createDb({ connectionString: databaseUrl, maxConnections: 1 });
  const writer = new FenceWriter({ url: redisUrl, id: 'bench-commits' });
  await writer.start();
  let n = 0;
  let running = true;
  const durations: number[] = [];
  const loop = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, ms));
      // The indexer's own end of a transaction: raise the epoch, fence it, commit.
      await fenceNow(db, async (epoch) => {
        const t0 = performance.now();
        await writer.fence(epoch);
        durations.push(performance.now() - t0);
      });
      n++;
    }
  })();
  return {
    count: () => n,
    fenceMs: () => durations,
    async stop() {
      running = false;
      await loop;
      await writer.stop();
      await db.destroy();
    },
  };
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
    await migrateLatest(db); // before the api starts (the indexer, when it runs, starts after it)
    const tip = (await db('chain_tip').first('block_height')) as { block_height: number } | undefined;
    if (!tip || tip.block_height < 100) throw new BenchInvalidError(`reused database: tip ${tip?.block_height ?? 'none'}`);
    const redis = await startRedis({ dataDir: join(dir, `redis-${process.pid}`) });
    stops.unshift(() => redis.stop());

    const gateways = variants();
    const nginxWanted = withNginx();
    const ports = await freePorts(3 + 2 * gateways.length);
    const apiPort = ports[0]!;
    const quiet = () => {};
    const common = { DATABASE_URL: databaseUrl, KAFKA_BROKERS: '', REDIS_URL: undefined };
    const api = startService(
      'api',
      { ...common, LOG_LEVEL: 'info', API_PORT: String(apiPort), API_HOST: '127.0.0.1', API_WORKERS: '1', BDA_NODE_ARGS: '' },
      quiet,
    );
    procs.push(api);
    await waitForHttp(`http://127.0.0.1:${apiPort}/readyz`);
    if (WITH_INDEXER) {
      // As deployed: the indexer fences its commits on the gateways' Redis (ADR 0048). Nothing new arrives on its
      // bus, so it only keeps its heartbeat; without it no gateway would keep an answer.
      const indexerPort = ports[2 + 2 * gateways.length]!;
      const indexer = startService(
        'indexer',
        { ...common, LOG_LEVEL: 'warn', REDIS_URL: redis.url, INDEXER_PORT: String(indexerPort), INDEXER_HOST: '127.0.0.1' },
        quiet,
      );
      procs.push(indexer);
      await waitForHttp(`http://127.0.0.1:${indexerPort}/readyz`, 120_000, () => indexer.child.exitCode === null);
    }
    const started: Array<{ label: string; port: number; proc: ServiceProcess }> = [];
    for (const [i, g] of gateways.entries()) {
      const port = ports[1 + 2 * i]!;
      const proc = startGatewayAt(g.root, {
        ...common,
        LOG_LEVEL: 'info',
        GATEWAY_PORT: String(port),
        GATEWAY_ADMIN_PORT: String(ports[2 + 2 * i]!),
        HOST: '127.0.0.1',
        API_URLS: `http://127.0.0.1:${apiPort}`,
        NODE_RPC_URLS: 'http://127.0.0.1:9',
        RATE_LIMIT_ENABLED: 'true',
        ACCESS_LOG: 'true',
        REDIS_URL: redis.url,
        // Each gateway its own counters (the key's limits are never reached either way).
        REDIS_KEY_PREFIX: `bench:gw${i}:`,
        ...g.env,
      });
      procs.push(proc);
      started.push({ label: g.label, port, proc });
    }
    for (const g of started)
      await waitForHttp(`http://127.0.0.1:${g.port}/healthz`, 60_000, () => g.proc.child.exitCode === null);
    // nginx in front of the same api, one worker per core as the gateway's default: its master's process tree.
    let nginx: { port: number; pid: number } | undefined;
    if (nginxWanted) {
      const nginxDir = join(dir, `nginx-${process.pid}`);
      mkdirSync(nginxDir, { recursive: true });
      const port = ports[1 + 2 * gateways.length]!;
      writeFileSync(
        join(nginxDir, 'nginx.conf'),
        nginxConfig({ dir: nginxDir, port, upstreamPort: apiPort, workers: availableParallelism() }),
      );
      const child = spawn('nginx', ['-c', join(nginxDir, 'nginx.conf'), '-p', nginxDir], { stdio: 'ignore' });
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      stops.unshift(async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      });
      await waitForHttp(`http://127.0.0.1:${port}/extended`, 30_000, () => child.exitCode === null);
      nginx = { port, pid: child.pid! };
    }
    // A key whose own limits the benchmark never reaches: every request still takes the Redis limit path.
    const { key } = await createKey(db, { owner: 'bench', rateLimitPerMinute: 1_000_000_000, burstPerSecond: 100_000_000 });
    const height = Math.floor(tip.block_height / 2);
    await db.destroy();

    // `blocks`: every block by height in turn, so that a repeat of one is rare (with BENCH_COMMIT_MS, nearly every
    // read through a gateway keeping answers is a miss: what the miss path costs).
    const everyHeight = Array.from({ length: tip.block_height }, (_, i) => `/extended/v2/blocks/${i + 1}`);
    const scenarios: Array<{ id: string; name: string; path: string; paths?: string[] }> = [
      { id: 'extended', name: '/extended', path: '/extended' },
      { id: 'block', name: 'block by height', path: `/extended/v2/blocks/${height}` },
      { id: 'blocks', name: 'every block in turn', path: everyHeight[0]!, paths: everyHeight },
    ].filter((s) => ENDPOINTS.has(s.id));
    const targets = [
      { name: 'direct', port: apiPort, headers: {} as Record<string, string>, pid: undefined as number | undefined },
      ...started.map((g) => ({ name: g.label, port: g.port, headers: { 'x-api-key': key }, pid: g.proc.child.pid })),
      ...(nginx ? [{ name: 'nginx (no key, no limit)', port: nginx.port, headers: {}, pid: nginx.pid }] : []),
    ];
    // Every door gives the api's own answer, byte for byte, the first time and the next (kept) time.
    for (const s of scenarios) {
      const expected = await (await fetch(`http://127.0.0.1:${apiPort}${s.path}`)).text();
      for (const t of targets)
        for (let i = 0; i < 2; i++) {
          const res = await fetch(`http://127.0.0.1:${t.port}${s.path}`, { headers: t.headers });
          const body = await res.text();
          if (res.status !== 200) throw new BenchInvalidError(`${t.name} ${s.path} answered ${res.status}: ${body}`);
          if (body !== expected) throw new BenchInvalidError(`${t.name} ${s.path} answered another body than the api`);
          if ([...res.headers.keys()].some((h) => h.startsWith('x-bda-')))
            throw new BenchInvalidError(`${t.name} leaked x-bda-*`);
        }
    }
    const commits = COMMIT_MS === undefined ? undefined : await startCommits(databaseUrl, redis.url, COMMIT_MS);
    if (commits) stops.unshift(() => commits.stop());
    console.log(
      `${availableParallelism()} cores shared by wrk, the api (one worker), the gateway(s), PostgreSQL and Redis; ` +
        `${hasWrk() ? 'wrk' : 'node generator'}, ${CONNECTIONS} connections, ${SECONDS} s a run; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    // The postmaster's pid: its backends (the api's and the gateway's connections) are its children.
    const postmaster = Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const cpu = (gatewayPid: number | undefined) => {
      const all = allProcs();
      const primary = gatewayPid === undefined ? undefined : all.get(gatewayPid);
      return {
        api: treeCpuMs(api.child.pid!, all),
        gateway: gatewayPid === undefined ? 0 : treeCpuMs(gatewayPid, all),
        primary: primary ? primary.user + primary.sys : 0,
        postgres: treeCpuMs(postmaster, all),
        switches: gatewayPid === undefined ? 0 : treeSwitches(gatewayPid, all),
      };
    };
    const runs = scenarios.map(() => targets.map((): Run[] => []));
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1}/${ROUNDS}, load average ${loadavg()[0]!.toFixed(2)}`);
      for (const [si, s] of scenarios.entries())
        for (let k = 0; k < targets.length; k++) {
          const ti = (k + round) % targets.length; // alternating: each round starts one target further along
          const t = targets[ti]!;
          const url = `http://127.0.0.1:${t.port}${s.path}`;
          const paths = s.paths;
          await httpLoad(url, { seconds: Math.min(2, SECONDS), connections: CONNECTIONS, headers: t.headers, paths }); // warm-up
          const before = cpu(t.pid);
          const load = await httpLoad(url, { seconds: SECONDS, connections: CONNECTIONS, headers: t.headers, paths });
          const after = cpu(t.pid);
          const requests = Math.max(1, load.rps * SECONDS);
          const per = (k: keyof Run['cpu']) => ((after[k] - before[k]) * 1000) / requests;
          const run: Run = {
            load,
            cpu: { api: per('api'), gateway: per('gateway'), primary: per('primary'), postgres: per('postgres') },
            switches: (after.switches - before.switches) / requests,
          };
          runs[si]![ti]!.push(run);
          console.log(
            `  ${s.name.padEnd(16)} ${t.name.padEnd(24)} ${load.rps.toFixed(0).padStart(6)} req/s  p50 ${load.p50.toFixed(2)} ms  ` +
              `CPU µs/req: api ${run.cpu.api.toFixed(0)}, gateway ${run.cpu.gateway.toFixed(0)} (primary ${run.cpu.primary.toFixed(0)}), ` +
              `PostgreSQL ${run.cpu.postgres.toFixed(0)}; gateway context switches/req ${run.switches.toFixed(2)}${load.errors ? `  (${load.errors} errors)` : ''}`,
          );
        }
    }
    const failing = runs.flatMap((byTarget, si) =>
      byTarget.flatMap((rs, ti) => (rs.some((r) => r.load.errors > 0) ? [`${scenarios[si]!.name} ${targets[ti]!.name}`] : [])),
    );
    if (failing.length > 0) throw new BenchInvalidError(`error answers under load: ${failing.join(', ')}`);
    if (commits) {
      const d = [...commits.fenceMs()].sort((a, b) => a - b);
      const at = (q: number) => d[Math.min(d.length - 1, Math.floor(q * d.length))]!.toFixed(2);
      console.log(
        `${commits.count()} stand-in commits, one every ${COMMIT_MS} ms, each fenced before it committed; ` +
          `fence: median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${d[d.length - 1]!.toFixed(2)} ms`,
      );
    }
    console.log(
      `\n${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(2)}: median (min–max) of ${ROUNDS} alternating round(s); ratios taken within each round`,
    );
    console.log(
      "| endpoint | door | req/s | ÷ direct (bar ≥ 70 %) | CPU µs/req: api / gateway (its primary) / PostgreSQL | gateway CPU ÷ the first gateway's | gateway context switches/req |",
    );
    console.log('|---|---|---:|---:|---|---:|---:|');
    for (const [si, s] of scenarios.entries()) {
      const direct = runs[si]![0]!;
      for (const [ti, t] of targets.entries()) {
        const rs = runs[si]![ti]!;
        const c = (k: keyof Run['cpu']) =>
          formatSpread(
            rs.map((r) => r.cpu[k]),
            0,
          );
        const ratio =
          ti === 0
            ? '-'
            : `${formatSpread(
                rs.map((r, i) => (100 * r.load.rps) / direct[i]!.load.rps),
                0,
              )} %`;
        const first = runs[si]![1];
        const vsFirst =
          ti <= 1 || !first
            ? '-'
            : formatSpread(
                rs.map((r, i) => r.cpu.gateway / first[i]!.cpu.gateway),
                2,
              );
        const cpuCell =
          ti === 0 ? `${c('api')} / - / ${c('postgres')}` : `${c('api')} / ${c('gateway')} (${c('primary')}) / ${c('postgres')}`;
        const sw =
          ti === 0
            ? '-'
            : formatSpread(
                rs.map((r) => r.switches),
                2,
              );
        console.log(
          `| ${s.name} | ${t.name} | ${formatSpread(
            rs.map((r) => r.load.rps),
            0,
          )} | ${ratio} | ${cpuCell} | ${vsFirst} | ${sw} |`,
        );
      }
    }
  } finally {
    for (const p of procs.reverse()) await stopService(p);
    for (const stop of stops) await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? err.message : err);
  process.exit(1);
});
