/**
 * bench/names/name-reads: the BNS lookups' speed on large read models, and that it does not depend on their size
 * (not a test; no assertions on speed).
 *
 * Two databases on one PostgreSQL, filled in SQL (`seed-names.ts`): a big one (BENCH_NAMES names, BENCH_SUBDOMAINS
 * subdomains: 1,000,000 and 5,000,000) and a small one (BENCH_SMALL_NAMES names, five times as many subdomains:
 * 10,000 and 50,000), with the same answer sizes (every address holds 10 names and 50 subdomains). One api process
 * serves each (`services/api/src/main.ts`, API_WORKERS=1 unless BENCH_API_WORKERS, LOG_LEVEL=info: an access line a
 * request, as deployed).
 *
 * Checks before any load (a failure makes the run invalid: `BENCH INVALID`, exit 1, no figures): every path of every
 * scenario answers 200 and exactly what the generated data implies (address, zonefile, txid, expiry… of the name;
 * the address's names; computed from the numbering in `seed-names.ts`, not by the api); the statements' generic plans
 * (EXPLAIN ANALYZE on each database) are index lookups with no sequential scan and read the same number of buffers in
 * the small and the big database. Then BENCH_ROUNDS rounds; in each, every scenario runs on the small and the big
 * database, alternating which goes first: `wrk` (2 threads, BENCH_CONNECTIONS connections, BENCH_SECONDS s, after a
 * 1 s warm-up) cycling through BENCH_PATHS different paths spread over the table. Any non-200 answer under load makes
 * the run invalid. The summary: req/s median (min–max) of the rounds, median p50 / p99, and big ÷ small.
 *
 *   npx tsx bench/names/name-reads.ts
 *   env: BENCH_NAMES=1000000 BENCH_SUBDOMAINS=5000000 BENCH_SMALL_NAMES=10000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16
 *        BENCH_ROUNDS=3 BENCH_PATHS=10000
 *        DATABASE_URL=<server url> (default: an embedded PostgreSQL under .tmp/, removed at the end)
 *        BENCH_DATA_DIR=<dir> (the embedded PostgreSQL's folder, kept: a later run with the same shapes reuses its data)
 *        BDA_NODE_ARGS="--cpu-prof --cpu-prof-dir=.tmp/prof" (profiles of the api processes, written when they stop)
 *        BENCH_PG_SOCKET=/tmp (one more api on the big database, reaching PostgreSQL by its Unix socket in that folder)
 *        BENCH_ONLY=<text> (only the lookups whose path template contains it)
 *        BENCH_BASELINE=<commit> (a third api on the big database: that commit's services/api/src, to compare in one sitting)
 *        BENCH_API_WORKERS=1 (each api's API_WORKERS; the api's own default is one per CPU: `default` runs it so; the CPU
 *        of an api is then that of its cluster's processes)
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { NAME_LOOKUP_STATEMENTS } from '@bda/api';
import { freePorts, startPostgres } from '@bda/test-support';
import { hasWrk } from '../http-load';
import { removeBenchDir } from '../ingest/bench-dir';
import { BenchInvalidError, formatSpread, spread } from '../spread';
import { ROOT, startService, stopService, waitForHttp, type ServiceProcess } from '../../scripts/lib/service-process';
import { pathsLoad, type PathsLoad } from './paths-load';
import {
  addressCount,
  expectedAddressNames,
  expectedName,
  expectedSubdomain,
  ownerAddress,
  seedNames,
  type NamesShape,
} from './seed-names';

const BIG: NamesShape = {
  names: Number(process.env.BENCH_NAMES ?? 1_000_000),
  subdomains: Number(process.env.BENCH_SUBDOMAINS ?? 5_000_000),
};
const SMALL_NAMES = Number(process.env.BENCH_SMALL_NAMES ?? 10_000);
const SMALL: NamesShape = { names: SMALL_NAMES, subdomains: SMALL_NAMES * 5 };
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PATHS = Number(process.env.BENCH_PATHS ?? 10_000);
const PG_SOCKET = process.env.BENCH_PG_SOCKET;
const BASELINE = process.env.BENCH_BASELINE;

interface Target {
  label: string;
  shape: NamesShape;
  databaseUrl: string;
  base: string;
  apiPid: number;
}

/** One load run with the CPU each part used per request (µs): the api process, its PostgreSQL backends, wrk. */
interface Run extends PathsLoad {
  apiUs: number;
  pgUs: number;
  wrkUs: number;
}

const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** User + system CPU of each process so far, in µs (from /proc; a process that has ended is left out). */
function cpuUs(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6);
    } catch {
      // ended
    }
  }
  return out;
}

/** A process and its descendants (an api's cluster workers), from /proc. */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const children = readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, 'utf8').trim();
      if (children) out.push(...children.split(' ').map(Number));
    } catch {
      // ended
    }
  }
  return out;
}

/** CPU used between two readings by the processes present in both (a backend the pool closed meanwhile is left out). */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let us = 0;
  for (const [pid, t] of after) if (before.has(pid)) us += t - before.get(pid)!;
  return us;
}

/** The PostgreSQL backends of the api's pools (`bda-api`, `bda-api-runes`, `bda-api-names`). */
async function backendPids(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client(databaseUrl);
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'bda-api%'`,
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/** A load run of `paths` on `t`, with the CPU per request of the api, its backends and wrk. */
async function measuredLoad(t: Target, paths: string[]): Promise<Run> {
  // The pool opens its connections under the warm-up; the backends are looked up after it.
  await pathsLoad(t.base, paths, 1, CONNECTIONS);
  const backends = await backendPids(t.databaseUrl);
  const api = processTree(t.apiPid);
  const api0 = cpuUs(api);
  const pg0 = cpuUs(backends);
  const r = await pathsLoad(t.base, paths, SECONDS, CONNECTIONS);
  const requests = r.rps * SECONDS;
  return {
    ...r,
    apiUs: cpuBetween(api0, cpuUs(api)) / requests,
    pgUs: cpuBetween(pg0, cpuUs(backends)) / requests,
    wrkUs: (r.wrkCpuMs * 1000) / requests,
  };
}

interface Scenario {
  label: string;
  /** The paths of one database, with the body each must answer. */
  paths(shape: NamesShape): Array<{ path: string; body: unknown }>;
}

/** `count` numbers spread over [0, total): a stride apart, shifted so every last digit occurs. */
function spreadOver(total: number, count: number): number[] {
  const n = Math.min(total, count);
  const stride = Math.floor(total / n);
  return Array.from({ length: n }, (_, k) => Math.min(total - 1, k * stride + (k % Math.min(10, stride))));
}

const ALL_SCENARIOS: Scenario[] = [
  {
    label: '/v1/names/{name}',
    paths: (shape) => spreadOver(shape.names, PATHS).map((g) => ({ path: `/v1/names/n${g}.btc`, body: expectedName(shape, g) })),
  },
  {
    label: '/v1/addresses/stacks/{addr}',
    paths: (shape) =>
      spreadOver(addressCount(shape), PATHS).map((i) => ({
        path: `/v1/addresses/stacks/${ownerAddress(i)}`,
        body: { names: expectedAddressNames(shape, i) },
      })),
  },
  {
    label: '/v1/names/{subdomain}',
    paths: (shape) =>
      spreadOver(shape.subdomains, PATHS).map((g) => ({
        path: `/v1/names/s${g}.n${g % shape.names}.btc`,
        body: expectedSubdomain(shape, g),
      })),
  },
];

const SCENARIOS = ALL_SCENARIOS.filter((s) => s.label.includes(process.env.BENCH_ONLY ?? ''));

/** Every path answers 200 with exactly the expected body; the first wrong answers are the error. */
async function checkAnswers(target: Target, scenario: Scenario, paths: Array<{ path: string; body: unknown }>): Promise<void> {
  const wrong: string[] = [];
  for (let k = 0; k < paths.length; k += 50) {
    await Promise.all(
      paths.slice(k, k + 50).map(async ({ path, body }) => {
        const res = await fetch(`${target.base}${path}`);
        const text = await res.text();
        if (res.status !== 200 || !isDeepStrictEqual(JSON.parse(text), body)) {
          wrong.push(`${path} answered ${res.status} ${text.slice(0, 300)} (expected ${JSON.stringify(body).slice(0, 300)})`);
        }
      }),
    );
  }
  if (wrong.length > 0) {
    throw new BenchInvalidError(
      `${target.label}, ${scenario.label}: ${wrong.length} wrong answers, e.g. ${wrong.slice(0, 2).join('; ')}`,
    );
  }
}

interface PlanSummary {
  nodes: string;
  buffers: number;
  ms: number;
  /** EXPLAIN (ANALYZE, BUFFERS) as text, as printed in the README. */
  text: string;
}

/** The generic plan of a lookup (as the api's sessions plan it) run once: its node types and buffers read. */
async function explain(databaseUrl: string, text: string, values: unknown[]): Promise<PlanSummary> {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c plan_cache_mode=force_generic_plan' });
  await client.connect();
  try {
    await client.query({ name: 'lookup', text, values });
    // A text[] parameter as an array literal (the lookups take an array of keys: one lookup is an array of one).
    const literal = (v: unknown) => (Array.isArray(v) ? `{${v.map((e) => `"${String(e)}"`).join(',')}}` : String(v));
    const params = values.map((v) => `'${literal(v).replace(/'/g, "''")}'`).join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE lookup(${params})`,
    );
    const [{ Plan: plan, 'Execution Time': ms }] = rows[0]!['QUERY PLAN'] as [{ Plan: PlanNode; 'Execution Time': number }];
    const nodes: string[] = [];
    const walk = (p: PlanNode) => {
      nodes.push(p['Relation Name'] ? `${p['Node Type']} ${p['Index Name'] ?? p['Relation Name']}` : p['Node Type']);
      for (const c of p.Plans ?? []) walk(c);
    };
    walk(plan);
    const textPlan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE lookup(${params})`);
    return {
      nodes: nodes.join(' › '),
      buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
      ms,
      text: textPlan.rows.map((r) => r['QUERY PLAN']).join('\n'),
    };
  } finally {
    await client.end();
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

async function checkPlans(targets: Target[]): Promise<void> {
  const samples: Array<[string, string, (shape: NamesShape) => unknown[]]> = [
    ['name', NAME_LOOKUP_STATEMENTS.name, (s) => [[`n${Math.floor(s.names / 2) + 3}.btc`]]],
    ['address', NAME_LOOKUP_STATEMENTS.address, (s) => [[ownerAddress(Math.floor(addressCount(s) / 2))]]],
    [
      'subdomain',
      NAME_LOOKUP_STATEMENTS.subdomain,
      (s) => [[`s${Math.floor(s.subdomains / 2)}.n${Math.floor(s.subdomains / 2) % s.names}.btc`]],
    ],
  ];
  const problems: string[] = [];
  for (const [label, text, values] of samples) {
    const plans = [];
    for (const t of targets) {
      const p = await explain(t.databaseUrl, text, values(t.shape));
      plans.push(p);
      console.log(
        `  ${label.padEnd(10)} ${t.label.padEnd(6)} ${String(p.buffers).padStart(4)} buffers ${p.ms.toFixed(3)} ms  ${p.nodes}`,
      );
      console.log(p.text.replace(/^/gm, '      '));
      // The namespaces (a handful of rows) and the one-row tip may be scanned; the tables that grow may not.
      if (/Seq Scan bns_(names|subdomains|zonefiles|names_current|subdomains_current|address_names)( |$)/.test(p.nodes))
        problems.push(`${label} on ${t.label} scans a table: ${p.nodes}`);
    }
    const [small, big] = plans as [PlanSummary, PlanSummary];
    if (small.nodes !== big.nodes) problems.push(`${label} has another plan on the big database`);
    // A B-tree a hundred times larger may be one level deeper: one more buffer per index descent, no more.
    if (big.buffers > small.buffers * 1.5) problems.push(`${label} reads ${small.buffers} vs ${big.buffers} buffers`);
  }
  if (problems.length > 0) throw new BenchInvalidError(`plans: ${problems.join('; ')}`);
}

/** API_WORKERS of each api: BENCH_API_WORKERS (`default`: unset, the api's default of one per CPU), else 1. */
const API_WORKERS = process.env.BENCH_API_WORKERS === 'default' ? undefined : (process.env.BENCH_API_WORKERS ?? '1');

/** The api process's environment, as deployed: BENCH_API_WORKERS workers, an access line a request; TCP unless `socket`. */
function apiEnv(databaseUrl: string, port: number, socket?: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: socket ? `${databaseUrl}?host=${encodeURIComponent(socket)}` : databaseUrl,
    KAFKA_BROKERS: '',
    REDIS_URL: undefined,
    LOG_LEVEL: 'info',
    API_PORT: String(port),
    API_HOST: '127.0.0.1',
    API_WORKERS,
    API_SCHEMAS_DIR: join(ROOT, 'schemas'),
  };
}

/** The api of another commit (its `services/api/src`, over this checkout's libraries and node_modules). */
function baselineApi(commit: string, env: NodeJS.ProcessEnv): ServiceProcess {
  const dir = join(ROOT, '.tmp', `bench-names-baseline-${commit}`);
  if (!existsSync(join(dir, 'services/api/src/main.ts'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${commit}" services/api/src | tar -x -C "${dir}"`]);
  }
  const nodeArgs = (process.env.BDA_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(dir, 'services/api/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return { name: 'api', child, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  const procs: ServiceProcess[] = [];
  try {
    let serverUrl = process.env.DATABASE_URL;
    if (!serverUrl) {
      const dir = process.env.BENCH_DATA_DIR ?? join(ROOT, '.tmp', `bench-names-${process.pid}`);
      const pgServer = await startPostgres({
        dataDir: join(dir, 'pg'),
        fresh: !process.env.BENCH_DATA_DIR,
        settings: { fsync: 'off', synchronous_commit: 'off' },
      });
      serverUrl = pgServer.url;
      if (!process.env.BENCH_DATA_DIR) stops.push(async () => removeBenchDir(dir));
      stops.unshift(() => pgServer.stop());
    }
    const ports = await freePorts(4);
    const targets: Target[] = [];
    for (const [k, [label, shape]] of (
      [
        ['small', SMALL],
        ['big', BIG],
      ] as const
    ).entries()) {
      const name = `bench_names_${shape.names}_${shape.subdomains}`;
      const admin = new pg.Client(serverUrl);
      await admin.connect();
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!rowCount) await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      const databaseUrl = url.toString();
      const seconds = await seedNames(databaseUrl, shape);
      console.log(
        `${label}: ${shape.names.toLocaleString('en')} names, ${shape.subdomains.toLocaleString('en')} subdomains, ${addressCount(shape).toLocaleString('en')} addresses (${seconds === null ? 'reused from an earlier run' : `generated in ${seconds.toFixed(0)} s`})`,
      );
      const port = ports[k]!;
      procs.push(startService('api', apiEnv(databaseUrl, port), () => {}));
      await waitForHttp(`http://127.0.0.1:${port}/readyz`);
      targets.push({ label, shape, databaseUrl, base: `http://127.0.0.1:${port}`, apiPid: procs.at(-1)!.child.pid! });
    }
    if (BASELINE) {
      const big = targets[1]!;
      const port = ports[2]!;
      procs.push(baselineApi(BASELINE, apiEnv(big.databaseUrl, port)));
      await waitForHttp(`http://127.0.0.1:${port}/readyz`);
      targets.push({ ...big, label: `big, ${BASELINE}`, base: `http://127.0.0.1:${port}`, apiPid: procs.at(-1)!.child.pid! });
    }
    if (PG_SOCKET) {
      const big = targets[1]!;
      const port = ports[3]!;
      procs.push(startService('api', apiEnv(big.databaseUrl, port, PG_SOCKET), () => {}));
      await waitForHttp(`http://127.0.0.1:${port}/readyz`);
      targets.push({ ...big, label: 'big, socket', base: `http://127.0.0.1:${port}`, apiPid: procs.at(-1)!.child.pid! });
    }

    console.log('plans (generic, as the api runs them), EXPLAIN ANALYZE of one lookup on each database:');
    await checkPlans(targets.slice(0, 2));
    const paths = SCENARIOS.map((s) => targets.map((t) => s.paths(t.shape)));
    for (const [si, s] of SCENARIOS.entries()) for (const [ti, t] of targets.entries()) await checkAnswers(t, s, paths[si]![ti]!);
    console.log(
      `answers checked: every path of every scenario on both databases (${paths.flat(2).length.toLocaleString('en')} requests)`,
    );

    console.log(
      `load: ${hasWrk() ? `wrk, ${CONNECTIONS} connections cycling through up to ${PATHS.toLocaleString('en')} paths` : `node generator, ${CONNECTIONS} connections, one path (no wrk)`}, ${SECONDS} s a run, loopback; ${availableParallelism()} cores shared by wrk, the api (${API_WORKERS ?? `API_WORKERS default: ${availableParallelism()}`} worker(s)) and PostgreSQL; the apis reach PostgreSQL by TCP${PG_SOCKET ? ` (the socket one by its Unix socket in ${PG_SOCKET})` : ''}`,
    );
    const runs = SCENARIOS.map(() => targets.map((): Run[] => []));
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1}/${ROUNDS}, load average ${loadavg()[0]!.toFixed(2)}`);
      for (const [si, s] of SCENARIOS.entries()) {
        for (let k = 0; k < targets.length; k++) {
          const ti = (k + round) % targets.length;
          const t = targets[ti]!;
          const list = paths[si]![ti]!.map((p) => p.path);
          const r = await measuredLoad(t, list);
          runs[si]![ti]!.push(r);
          console.log(
            `  ${s.label.padEnd(28)} ${t.label.padEnd(6)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  CPU µs/request: api ${r.apiUs.toFixed(0)}, PostgreSQL ${r.pgUs.toFixed(0)}, wrk ${r.wrkUs.toFixed(0)}${r.errors ? `  (${r.errors} errors)` : ''}`,
          );
        }
      }
    }
    const failing = runs.flatMap((byTarget, si) =>
      byTarget.flatMap((rs, ti) => (rs.some((r) => r.errors > 0) ? [`${SCENARIOS[si]!.label} / ${targets[ti]!.label}`] : [])),
    );
    if (failing.length > 0) throw new BenchInvalidError(`error answers under load: ${failing.join(', ')}`);
    console.log(
      `\n${new Date().toISOString()}: req/s, median (min–max) of ${ROUNDS} alternating round(s), median p50 / p99; no error answers. Bar: ≥ 5,000 req/s, p99 < 20 ms.`,
    );
    const head = targets.map((t) => `${t.label} (${t.shape.names.toLocaleString('en')} names)`);
    console.log(`| lookup | ${head.join(' | ')} | big ÷ small |`);
    console.log(`|---|${targets.map(() => '---').join('|')}|---|`);
    for (const [si, s] of SCENARIOS.entries()) {
      const cells = runs[si]!.map(
        (rs) =>
          `${formatSpread(
            rs.map((r) => r.rps),
            0,
          )}, ${spread(rs.map((r) => r.p50)).median.toFixed(2)} / ${spread(rs.map((r) => r.p99)).median.toFixed(2)} ms`,
      );
      const ratio = spread(runs[si]![1]!.map((r) => r.rps)).median / spread(runs[si]![0]!.map((r) => r.rps)).median;
      console.log(`| ${s.label} | ${cells.join(' | ')} | ${ratio.toFixed(2)} |`);
    }
    const cores = availableParallelism();
    console.log(
      `\nCPU per request, µs, median of the rounds: api process / its PostgreSQL backends / wrk = total; and what ${cores} cores doing nothing else would serve at that cost (${cores} s of CPU a second ÷ total)`,
    );
    console.log(`| lookup | ${head.join(' | ')} |`);
    console.log(`|---|${targets.map(() => '---').join('|')}|`);
    for (const [si, s] of SCENARIOS.entries()) {
      const cells = runs[si]!.map((rs) => {
        const [api, db, wrk] = [rs.map((r) => r.apiUs), rs.map((r) => r.pgUs), rs.map((r) => r.wrkUs)].map(
          (xs) => spread(xs).median,
        ) as [number, number, number];
        const total = api + db + wrk;
        return `${api.toFixed(0)} / ${db.toFixed(0)} / ${wrk.toFixed(0)} = ${total.toFixed(0)} → ${((cores * 1e6) / total).toFixed(0)} req/s`;
      });
      console.log(`| ${s.label} | ${cells.join(' | ')} |`);
    }
    console.log(`\nload average at the end ${loadavg()[0]!.toFixed(2)} (other work on the machine skews the figures)`);
  } finally {
    for (const p of procs.reverse()) await stopService(p);
    for (const stop of stops) await stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err instanceof BenchInvalidError ? err.message : err);
    process.exit(1);
  });
}
