/**
 * Proxy benchmark (not a test): requests/s and latency of `GET /v2/info` on a stub node, side by side:
 *
 *   direct        the stub node itself
 *   nginx         Debian's nginx proxying the stub (one worker per core, upstream keep-alive)
 *   gateway       the gateway, rate limiting off, no key
 *   gateway+redis the gateway with a key (cached after the first lookup) and the Redis limit check
 *   gateway+mem   the gateway with a key and the in-memory limiter (the embedded default, counters in the primary)
 *
 * Throughput: wrk with BENCH_CONNECTIONS connections for BENCH_SECONDS; latency: wrk with one connection
 * (so p50/p99 are the time one request takes, not queueing). Loopback only, bounded in time.
 * Needs Debian's `wrk`, `nginx` and `redis-server`; PostgreSQL is the embedded one.
 *
 * Rounds alternate: every round measures every target once (its throughput run and its latency run, back to back),
 * starting each round one target further along, so that no target always runs first or right after the same one.
 * Each round's figures are one run's; the summary is the median of the rounds with their spread (min–max), and the
 * ratios (per core against nginx, added p50 against direct) are taken within each round, then their median. Before
 * measuring, each target must answer the stub's `/v2/info` (its tip height); any non-2xx answer or socket error
 * under load makes the run invalid: the bench says so and exits 1 without a summary.
 *
 *   npx tsx bench/proxy/run.ts
 *   env: BENCH_SECONDS=10 BENCH_CONNECTIONS=64 BENCH_ROUNDS=3 GATEWAY_WORKERS=<cores> BENCH_TARGETS=direct,nginx,gateway,…
 *        BENCH_BASELINE=<dir> BENCH_BASELINE_TARGETS=gateway+redis (another gateway in the same run), BENCH_CPU_PROF=<dir>
 *        BENCH_BUNDLE=<dir> (the gateway under test from a built bundle, as production runs it: `node scripts/build.mjs
 *        --outdir <dir>`); a BENCH_BASELINE holding a `gateway.mjs` is a bundle too (`scripts/bundle-at.sh <commit> <dir>`)
 *
 * CPU per request: the user + system time of the target's processes (the stub, nginx's master and workers, a gateway's
 * primary and workers) during the throughput run, divided by the requests wrk counted in it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { get } from 'node:http';
import { join } from 'node:path';
import { freePort, startPostgres, startRedis, createTestDatabase } from '@bda/test-support';
import { createDb } from '@bda/db';
import { BenchInvalidError, formatSpread, spread } from '../spread';
import { nginxConfig } from '../nginx';
import { migrateToLatest } from '@bda/gateway';
import { createKey } from '@bda/gateway';

const ROOT = join(import.meta.dirname, '../..');
const TMP = join(ROOT, '.tmp', `bench-proxy-${process.pid}`);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const CORES = availableParallelism();
const WORKERS = Number(process.env.GATEWAY_WORKERS ?? CORES);
// The machine is shared (and the load generator runs on it): every target is measured in each round, the rounds
// alternate the order, and the median of the rounds is reported with its spread.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The stub node's tip height (bench/proxy/stub-node.ts): a target that answers it proxied to the stub. */
const STUB_TIP_HEIGHT = 1234567;
/** Directory for V8 CPU profiles of the gateways (`--cpu-prof`, one file per process, written when it stops). */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux
/**
 * Another gateway to measure in the same run, e.g. the last commit's (`git archive HEAD services/gateway | tar -x -C
 * .tmp/gw-before`): the directory holding its `services/gateway/src/main.ts`, under the repository so that it finds
 * node_modules. Its targets are named `<target> (before)`; BENCH_BASELINE_TARGETS says which (default gateway+redis).
 */
const BASELINE = process.env.BENCH_BASELINE;
const BASELINE_TARGETS = new Set((process.env.BENCH_BASELINE_TARGETS ?? 'gateway+redis').split(','));
const TARGETS = new Set((process.env.BENCH_TARGETS ?? 'direct,nginx,gateway,gateway+redis,gateway+mem').split(','));

interface Result {
  name: string;
  rps: number;
  /** Processes serving (for per-core figures). */
  procs: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (user + system) of the target's processes per request of the throughput run, in µs. */
  cpuUs: number;
}

const children: ChildProcess[] = [];
const stops: Array<() => Promise<void>> = [];

function need(bin: string, pkg: string): void {
  try {
    execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
  } catch {
    console.error(`${bin} not found: apt-get install -y ${pkg}`);
    process.exit(2);
  }
}

function spawnChild(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, logFile?: string): ChildProcess {
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', out, 'inherit'] });
  children.push(child);
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

async function waitHttp(url: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not up within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Parses wrk's output: Requests/sec, latency percentiles and non-2xx counts. */
function parseWrk(out: string): { rps: number; requests: number; p50: number; p99: number; errors: number } {
  const toMs = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1);
  const pct = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s|m)`).exec(out);
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const requests = Number(/(\d+) requests in /.exec(out)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const sockErrors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, requests, p50: pct('50'), p99: pct('99'), errors: non2xx + sockErrors };
}

function wrk(url: string, connections: number, seconds: number, headers: string[]): string {
  const threads = Math.max(1, Math.min(connections, CORES));
  const args = [
    '-t',
    String(threads),
    '-c',
    String(connections),
    '-d',
    `${seconds}s`,
    '--latency',
    ...headers.flatMap((h) => ['-H', h]),
    url,
  ];
  return execFileSync('wrk', args, { encoding: 'utf8' });
}

/** A process and its descendants (a cluster primary and its workers, nginx's master and workers). */
function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name in parentheses, which may itself hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(entry), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

/** User + system CPU seconds used so far by these processes (/proc/<pid>/stat utime + stime). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / CLOCK_TICKS;
}

async function measure(name: string, url: string, procs: number, pid: number, headers: string[] = []): Promise<Result> {
  wrk(url, CONNECTIONS, 2, headers); // warm-up: connections, JIT, key cache
  const pids = processTree(pid);
  const cpuBefore = cpuSeconds(pids);
  const load = parseWrk(wrk(url, CONNECTIONS, SECONDS, headers));
  const cpuUs = ((cpuSeconds(pids) - cpuBefore) / load.requests) * 1e6;
  const lat = parseWrk(wrk(url, 1, Math.max(3, Math.round(SECONDS / 2)), headers));
  const r = { name, rps: load.rps, procs, p50: lat.p50, p99: lat.p99, errors: load.errors + lat.errors, cpuUs };
  console.log(
    `  ${name.padEnd(14)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(3)} ms   p99 ${r.p99.toFixed(3)} ms   CPU ${r.cpuUs.toFixed(0)} µs/req${r.errors ? `   (${r.errors} errors)` : ''}`,
  );
  return r;
}

/** Fails unless `url` answers 200 with the stub node's `/v2/info` (its tip height): the target proxies to the stub. */
async function checkAnswer(name: string, url: string, headers: string[]): Promise<void> {
  const res = await fetch(url, { headers: Object.fromEntries(headers.map((h) => h.split(': ') as [string, string])) });
  const text = await res.text();
  let tip: unknown;
  try {
    tip = (JSON.parse(text) as { stacks_tip_height?: unknown }).stacks_tip_height;
  } catch {
    tip = undefined;
  }
  if (res.status !== 200 || tip !== STUB_TIP_HEIGHT)
    throw new BenchInvalidError(`${name} answered ${res.status} ${text.slice(0, 200)}, not the stub's /v2/info`);
}

/** GET over a new connection (no keep-alive pool). */
function httpGetText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function startGateway(
  env: Record<string, string>,
  root = process.env.BENCH_BUNDLE ?? ROOT,
): Promise<{ port: number; adminPort: number; child: ChildProcess }> {
  const port = await freePort();
  // The admin listener (`/metrics`) of each gateway on a port of its own (its default, 3998, would be shared).
  let adminPort = await freePort();
  while (adminPort === port) adminPort = await freePort();
  // The gateway's log (access lines included, as in production) goes to a file, shown if it fails to start.
  const log = join(TMP, `gateway-${port}.log`);
  const child = spawnChild(
    process.execPath,
    [
      ...(CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []),
      // A bundle directory (scripts/build.mjs) runs with plain node, as production does; sources run through tsx.
      ...(existsSync(join(root, 'gateway.mjs'))
        ? [join(root, 'gateway.mjs')]
        : ['--import', 'tsx', join(root, 'services/gateway/src/main.ts')]),
    ],
    {
      GATEWAY_PORT: String(port),
      GATEWAY_ADMIN_PORT: String(adminPort),
      HOST: '127.0.0.1',
      GATEWAY_WORKERS: String(WORKERS),
      LOG_LEVEL: 'info',
      ...env,
    },
    log,
  );
  try {
    await waitHttp(`http://127.0.0.1:${port}/readyz`);
  } catch (err) {
    console.error(readFileSync(log, 'utf8').split('\n').slice(-20).join('\n'));
    throw err;
  }
  return { port, adminPort, child };
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(
      'npx tsx bench/proxy/run.ts   (env: BENCH_SECONDS=10 BENCH_CONNECTIONS=64 BENCH_ROUNDS=3 GATEWAY_WORKERS=<cores> BENCH_TARGETS=…)',
    );
    return;
  }
  need('wrk', 'wrk');
  need('nginx', 'nginx');
  need('redis-server', 'redis-server');
  mkdirSync(TMP, { recursive: true });
  console.log(
    `proxy benchmark: ${CORES} cores, gateway/nginx workers ${WORKERS}, ${CONNECTIONS} connections, ${SECONDS} s per run\n`,
  );

  const stubPort = await freePort();
  const stub = spawnChild(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/proxy/stub-node.ts'), String(stubPort)]);
  await waitHttp(`http://127.0.0.1:${stubPort}/v2/info`);

  const pg = await startPostgres({ dataDir: join(TMP, 'pg'), fresh: true });
  stops.push(pg.stop);
  const redis = await startRedis({ dataDir: join(TMP, 'redis') });
  stops.push(redis.stop);
  const databaseUrl = await createTestDatabase(pg.url, 'bench');
  const db = createDb({ connectionString: databaseUrl, maxConnections: 1 });
  await migrateToLatest(db, databaseUrl);
  const { key } = await createKey(db, { owner: 'bench', rateLimitPerMinute: 2_000_000_000, burstPerSecond: 2_000_000_000 });
  await db.destroy();
  const keyHeader = `x-api-key: ${key}`;

  const nginxPort = await freePort();
  const nginxDir = join(TMP, 'nginx');
  mkdirSync(nginxDir, { recursive: true });
  writeFileSync(
    join(nginxDir, 'nginx.conf'),
    nginxConfig({ dir: nginxDir, port: nginxPort, upstreamPort: stubPort, workers: WORKERS }),
  );
  const nginx = spawnChild('nginx', ['-c', join(nginxDir, 'nginx.conf'), '-p', nginxDir]);
  await waitHttp(`http://127.0.0.1:${nginxPort}/v2/info`);

  const common = {
    DATABASE_URL: databaseUrl,
    NODE_RPC_URLS: `http://127.0.0.1:${stubPort}`,
    API_URLS: `http://127.0.0.1:${stubPort}`,
    API_HEALTH_PATH: '',
    NODE_RPC_ROUTES: 'GET /v2/info',
  };
  const targets: Array<{
    name: string;
    url: string;
    procs: number;
    pid: number;
    headers: string[];
    port?: number;
    adminPort?: number;
    child?: ChildProcess;
  }> = [
    // direct and nginx are the baselines of the ratios: always measured.
    { name: 'direct', url: `http://127.0.0.1:${stubPort}/v2/info`, procs: 1, pid: stub.pid!, headers: [] },
    { name: 'nginx', url: `http://127.0.0.1:${nginxPort}/v2/info`, procs: WORKERS, pid: nginx.pid!, headers: [] },
  ];
  const gateways = [
    ['gateway', { RATE_LIMIT_ENABLED: 'false' }, []],
    ['gateway+redis', { REDIS_URL: redis.url }, [keyHeader]],
    ['gateway+mem', {}, [keyHeader]],
  ] as Array<[string, Record<string, string>, string[]]>;
  for (const [name, env, headers, root] of [
    ...gateways.map(([n, e, h]) => [n, e, h, process.env.BENCH_BUNDLE ?? ROOT] as const),
    ...(BASELINE
      ? gateways.filter(([n]) => BASELINE_TARGETS.has(n)).map(([n, e, h]) => [`${n} (before)`, e, h, BASELINE] as const)
      : []),
  ]) {
    if (!TARGETS.has(name.replace(' (before)', ''))) continue;
    // Each gateway its own key prefix in Redis (a baseline must not share the counters of the gateway it is compared to).
    const gw = await startGateway({ ...common, REDIS_KEY_PREFIX: `bench:${targets.length}:`, ...env }, root);
    targets.push({
      name,
      url: `http://127.0.0.1:${gw.port}/v2/info`,
      procs: WORKERS,
      pid: gw.child.pid!,
      headers,
      port: gw.port,
      adminPort: gw.adminPort,
      child: gw.child,
    });
  }
  for (const t of targets) await checkAnswer(t.name, t.url, t.headers);
  const rounds = new Map<string, Result[]>();
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating: each round starts one target further along.
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    console.log(
      `round ${round + 1}/${ROUNDS} (${order.map((t) => t.name).join(', ')}), load average ${loadavg()[0]!.toFixed(2)}`,
    );
    for (const t of order) {
      const r = await measure(t.name, t.url, t.procs, t.pid, t.headers);
      rounds.set(t.name, [...(rounds.get(t.name) ?? []), r]);
    }
  }
  const errors = [...rounds.values()].flat().filter((r) => r.errors > 0);
  if (errors.length > 0)
    throw new BenchInvalidError(
      `error answers under load (${errors.map((r) => `${r.name}: ${r.errors}`).join(', ')}): the figures measure failures`,
    );
  for (const t of targets) {
    if (!t.port) continue;
    // A fresh connection: one kept alive since the gateway's start may have been closed by it meanwhile (EPIPE).
    // On the admin listener where the gateway has one, else (older gateways) on its public port.
    const metrics = await httpGetText(`http://127.0.0.1:${t.adminPort}/metrics`).catch(() =>
      httpGetText(`http://127.0.0.1:${t.port}/metrics`),
    );
    const fallback = /^gateway_ratelimit_fallback_decisions_total\S* (\d+)/m.exec(metrics)?.[1];
    // A decision the local limiter took instead of Redis is not the work gateway+redis claims to measure.
    if (fallback && fallback !== '0')
      throw new BenchInvalidError(
        `${t.name}: ${fallback} limit decisions fell back to the local limiter (Redis too slow or failing)`,
      );
  }
  await stopChild(nginx);
  // The gateways write their CPU profiles when they stop.
  if (CPU_PROF_DIR) for (const t of targets) if (t.child) await stopChild(t.child);

  // Ratios within each round (the same minutes of the machine), then the median of the rounds.
  const direct = rounds.get('direct')!;
  const ngx = rounds.get('nginx')!;
  const vsNginx = (rs: Result[]) => rs.map((r, i) => r.rps / r.procs / (ngx[i]!.rps / ngx[i]!.procs));
  const addedP50 = (rs: Result[]) => rs.map((r, i) => r.p50 - direct[i]!.p50);
  console.log(
    `\n${new Date().toISOString()}, ${CORES} cores, load average ${loadavg()[0]!.toFixed(2)} at the end; ` +
      `median (min–max) of ${ROUNDS} alternating round(s), one run's figures per round; no error answers:`,
  );
  console.log(
    '| target | req/s | req/s per core | vs nginx (per core) | CPU µs per request | p50 ms | p99 ms | added p50 ms (vs direct) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const t of targets) {
    const rs = rounds.get(t.name)!;
    console.log(
      `| ${t.name} | ${formatSpread(
        rs.map((r) => r.rps),
        0,
      )} | ${formatSpread(
        rs.map((r) => r.rps / r.procs),
        0,
      )} | ${formatSpread(
        vsNginx(rs).map((x) => x * 100),
        0,
        '%',
      )} | ${formatSpread(
        rs.map((r) => r.cpuUs),
        0,
      )} | ${formatSpread(
        rs.map((r) => r.p50),
        3,
      )} | ${formatSpread(
        rs.map((r) => r.p99),
        3,
      )} | ${t.name === 'direct' ? '-' : formatSpread(addedP50(rs), 3)} |`,
    );
  }
  const withLimit = rounds.get('gateway+redis');
  if (!withLimit) return;
  const ratio = spread(vsNginx(withLimit)).median;
  const added = spread(addedP50(withLimit)).median;
  console.log(
    `\nbar (keys + Redis limit), medians: ${(ratio * 100).toFixed(0)}% of nginx's req/s per core (bar ≥ 50%, issue 26; ` +
      `ADR 0006's was 30%), added p50 ${added.toFixed(3)} ms (bar ≤ 1 ms)`,
  );
  console.log(
    "note: the stub, nginx or the gateway, and wrk share the same cores; per-core figures divide by the proxy's worker count.",
  );
}

async function cleanup(): Promise<void> {
  await Promise.allSettled(children.map(stopChild));
  await Promise.allSettled(stops.map((s) => s()));
  rmSync(TMP, { recursive: true, force: true });
}

main()
  .then(cleanup)
  .catch(async (err: unknown) => {
    console.error(err instanceof BenchInvalidError ? err.message : err);
    await cleanup();
    process.exit(1);
  });
