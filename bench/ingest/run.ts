/**
 * bench/ingest: end-to-end ingestion through the real services (each its own process), for each bus.
 * From the first POST to the tip being visible through the api: blocks/s, chain events/s, per-POST
 * latency p50/p99, CPU per block, and how long the tip took to show after the last POST. CPU per block counts the
 * intake process (observer or importer), the indexer, PostgreSQL (postmaster and every backend, the api's and the
 * bench's own left out) and, over Kafka, the broker. `--rounds` rounds alternate the runs (each round starts one run
 * further along) and the summary gives each figure's median with its spread (min–max). Every run must end with no
 * dead letter and the expected canonical tip (through the api and in the database), else the bench exits 1 without
 * a summary. The reference importer's figures (issue #2) were measured elsewhere: they are printed beside ours as
 * such, never as a ratio of this run.
 *
 *   npx tsx bench/ingest/run.ts [--blocks 2000] [--txs 50] [--bus kafka,postgres] [--via node,import] [--rounds 3] [--skip-generated]
 *                               [--warm-up 20000 | --cold-broker] [--broker-c2] [--sources]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startKafka, startPostgres } from '@bda/test-support';
import type { RecordedEvent } from '@bda/observer';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { loadFixture } from '../../test/support/fixtures';
import { TestSystem } from '../../test/support/test-system';
import { BenchInvalidError, formatSpread } from '../spread';
import { AppliedWatch } from './applied-watch';
import { checkIngested, expectedTip, type ExpectedTip } from './check-ingested';
import { FIXTURE_FILES, fixtureTransferPool, generateChain } from './generate-chain';
import { useBuiltServices } from './built-services';
import { kafkaBrokerPid, postmasterPid, procStat, startCpuWindow } from './proc-cpu';
import { warmBroker } from './warm-broker';
import { removeBenchDir } from './bench-dir';

/**
 * The reference API's importer ingesting the same fixture files, as issue #2 gives them: measured elsewhere ("on
 * this kind of machine", by whoever filed the issue, before 2026-11-22; the issue names neither the date nor the
 * machine), never in a run of this bench. Its CPU a block included its PostgreSQL.
 */
const REFERENCE = {
  source: 'issue #2, measured elsewhere (before 2026-11-22, machine not named)',
  mocknet: { blocksPerSec: 70, eventsPerSec: 90 },
  allFixtures: { blocksPerSec: 25, eventsPerSec: 190 },
  perBlockP50Ms: 8,
  perBlockP99Ms: 100,
  cpuMsPerBlock: 37,
};

interface Result {
  name: string;
  bus: string;
  /** `node`: POSTed one at a time to the observer, as a node does; `import`: `npm run import` onto the bus. */
  via: 'node' | 'import';
  blocks: number;
  chainEvents: number;
  posts: number;
  seconds: number;
  postP50: number;
  postP99: number;
  tipLagMs: number;
  /** Intake + indexer + PostgreSQL + (over Kafka) the broker. */
  cpuMsPerBlock: number;
  cpuMs: { intake: number; indexer: number; postgres: number; kafka: number };
}

/**
 * CPU ms of every process on the machine, by pid, with its name (for BENCH_DEBUG's breakdown). PostgreSQL's processes
 * are named by their role (`postgres:backend`, `postgres:walwriter`, `postgres:autovacuum worker`, …), and the
 * postmaster also counts what its exited children (short-lived autovacuum workers) spent.
 */
function allCpu(): Map<number, { name: string; ms: number; sys: number }> {
  const out = new Map<number, { name: string; ms: number; sys: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const pid = Number(d);
      const { name, user, sys } = procStat(pid);
      if (name !== 'postgres') {
        out.set(pid, { name, ms: user + sys, sys });
        continue;
      }
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (title.startsWith('postgres: ')) {
        const role = title.slice('postgres: '.length);
        // A backend's title is `user database host(port) state`; the others name their role.
        const key = /^\S+ \S+ \S+\(\d+\)/.test(role) ? 'backend' : role.split(' ').slice(0, 2).join(' ');
        out.set(pid, { name: `postgres:${key}`, ms: user + sys, sys });
      } else {
        // The postmaster, with what its exited children (autovacuum workers) spent: its cutime and cstime.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        const [cuser, csys] = [Number(fields[13]) * 10, Number(fields[14]) * 10];
        out.set(pid, { name: 'postgres:postmaster+exited', ms: user + sys + cuser + csys, sys: sys + csys });
      }
    } catch {
      // gone
    }
  }
  return out;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

/** Starts `import-child.ts` on `file` against `sys`'s bus; resolves once it is connected and waiting for `go`. */
async function startImporter(sys: TestSystem, file: string): Promise<{ child: ChildProcess; done: Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'ingest', 'import-child.ts'), file], {
    cwd: ROOT,
    env: { ...process.env, ...sys.envFor('observer'), LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const waitFor = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const onLine = (line: string) => {
        if (!line.startsWith(word)) return;
        lines.off('line', onLine);
        resolve();
      };
      lines.on('line', onLine);
      child.once('exit', (code) => reject(new Error(`the importer exited (${code}) before "${word}"`)));
    });
  await waitFor('ready');
  return { child, done: waitFor('done') };
}

interface Infra {
  serverUrl: string;
  pgDataDir: string;
  kafka: { brokers: string; dataDir: string } | null;
  tmp: string;
}

async function runOne(
  name: string,
  events: RecordedEvent[],
  expected: ExpectedTip,
  bus: 'kafka' | 'postgres',
  via: 'node' | 'import',
  infra: Infra,
): Promise<Result> {
  const { tmp } = infra;
  const sys = await TestSystem.start({
    bus,
    serverUrl: infra.serverUrl,
    kafkaBrokers: infra.kafka?.brokers ?? '',
    services: via === 'node' ? ['indexer', 'observer', 'api'] : ['indexer', 'api'],
    env: { LOG_LEVEL: 'warn' },
  });
  const watch = await AppliedWatch.open(sys.databaseUrl);
  try {
    const blocks = events.filter((e) => e.path === '/new_block');
    const chainEvents = blocks.reduce((n, e) => n + (JSON.parse(e.body) as { events: unknown[] }).events.length, 0);
    const latencies: number[] = [];
    let importer: Awaited<ReturnType<typeof startImporter>> | undefined;
    if (via === 'import') {
      const file = join(tmp, `${name.replace(/[^a-z0-9]+/gi, '-')}.tsv`);
      writeFileSync(file, events.map((e) => `${e.id}\t${e.receivedAt}\t${e.path}\t${e.body}\n`).join(''));
      importer = await startImporter(sys, file);
    }
    const pids = [
      via === 'node' ? sys.procs.get('observer')!.child.pid! : importer!.child.pid!,
      sys.procs.get('indexer')!.child.pid!,
    ];
    // The watchers are already watching when the first event goes in, as a client polling the api and a monitor
    // scraping the indexer would be: the bench's own HTTP connections and the first, cold call of the two handlers
    // it polls at the end (about 20 ms each here) are not part of ingesting.
    for (const url of [`${sys.apiUrl}/extended`, `${sys.indexerUrl}/status`]) await (await fetch(url)).arrayBuffer();
    // PostgreSQL's backends of the api (its tip answers) and of the bench's watcher are not ingestion.
    const notIngest = new Set([watch.backendPid, ...(await watch.apiBackendPids())]);
    const cpuWindow = startCpuWindow(
      {
        intake: pids[0]!,
        indexer: pids[1]!,
        postgres: postmasterPid(infra.pgDataDir),
        ...(bus === 'kafka' && infra.kafka ? { kafka: kafkaBrokerPid(infra.kafka.dataDir) } : {}),
      },
      notIngest,
    );
    const all0 = process.env.BENCH_DEBUG ? allCpu() : null;
    const io = (pid: number) =>
      Object.fromEntries(
        readFileSync(`/proc/${pid}/io`, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(': '))
          .map(([k, v]) => [k, Number(v)]),
      );
    const io0 = pids.map(io);
    const t0 = performance.now();
    // When the last event went out: the tip lag counts from there, so that an answer the observer held back (ADR 0015)
    // is part of the lag, not hidden before it.
    let tLastPost = t0;
    if (importer) {
      importer.child.stdin!.write('go\n');
      await importer.done;
      tLastPost = performance.now();
    } else {
      let last = t0;
      // Posted as a node posts (one at a time, each retried until 200), over a kept-alive connection.
      await replayEvents(events, {
        observerUrl: sys.observerUrl,
        onProgress: () => {
          const now = performance.now();
          latencies.push(now - last);
          tLastPost = last;
          last = now;
        },
      });
    }
    const tLastAnswer = performance.now();
    // Everything posted applied (the last events may follow the last block), watched in the database on the bench's
    // own connection (left out of PostgreSQL's CPU); then the expected tip as the api shows it.
    await watch.waitForHead(sys.indexerUrl, 600_000);
    const tApplied = performance.now();
    for (;;) {
      const res = await fetch(`${sys.apiUrl}/extended`);
      const body = (await res.json()) as { chain_tip?: { block_height: number; index_block_hash: string } | null };
      if (body.chain_tip?.index_block_hash === expected.indexBlockHash) break;
      if (performance.now() - tLastAnswer > 600_000)
        throw new BenchInvalidError(
          `${name}: the api's tip is ${JSON.stringify(body.chain_tip)} 10 minutes after the last event, expected ${expected.height} ${expected.indexBlockHash}`,
        );
      await new Promise((r) => setTimeout(r, 2));
    }
    const tVisible = performance.now();
    if (process.env.BENCH_DEBUG)
      console.log(
        `last event sent after ${(tLastPost - t0).toFixed(1)} ms and answered ${(tLastAnswer - tLastPost).toFixed(1)} ms later, applied ${(tApplied - tLastPost).toFixed(1)} ms after it was sent, tip visible ${(tVisible - tLastPost).toFixed(1)} ms`,
      );
    const cpu = cpuWindow.stop();
    if (all0 && via === 'node') {
      const text =
        (await (await fetch(`${sys.observerUrl}/metrics`)).text()) + (await (await fetch(`${sys.indexerUrl}/metrics`)).text());
      console.log(
        'pacing',
        text
          .split('\n')
          .filter((l) => /^(observer_pace_(skipped_total|hold_seconds_(sum|count))|indexer_batch_seconds_(sum|count))/.test(l))
          .join(' | '),
      );
    }
    if (all0) {
      const io1 = pids.map(io);
      console.log(
        'io',
        pids
          .map(
            (_, i) =>
              `wchar ${((io1[i].wchar - io0[i].wchar) / 1e6).toFixed(2)} MB in ${io1[i].syscw - io0[i].syscw} writes, rchar ${((io1[i].rchar - io0[i].rchar) / 1e6).toFixed(2)} MB`,
          )
          .join(' | '),
      );
      const by = new Map<string, number>();
      const bySys = new Map<string, number>();
      for (const [pid, p] of allCpu()) {
        const d = p.ms - (all0.get(pid)?.ms ?? 0);
        const dSys = p.sys - (all0.get(pid)?.sys ?? 0);
        const key = pids.includes(pid)
          ? `${p.name}:${pid === pids[0] ? 'intake' : 'indexer'}`
          : pid === process.pid
            ? 'bench'
            : p.name;
        if (d > 0) by.set(key, (by.get(key) ?? 0) + d);
        if (dSys > 0) bySys.set(key, (bySys.get(key) ?? 0) + dSys);
      }
      console.log('cpu ms', JSON.stringify(Object.fromEntries([...by].sort((a, b) => b[1] - a[1]))));
      console.log('of which kernel', JSON.stringify(Object.fromEntries([...bySys].sort((a, b) => b[1] - a[1]))));
    }
    await checkIngested(sys.db, expected);
    const cpuMs = { intake: cpu.intake!, indexer: cpu.indexer!, postgres: cpu.postgres!, kafka: cpu.kafka ?? 0 };
    const cpuTotal = cpuMs.intake + cpuMs.indexer + cpuMs.postgres + cpuMs.kafka;
    if (importer) {
      importer.child.stdin!.end();
      await new Promise((r) => importer.child.once('exit', r));
    }
    return {
      name,
      bus,
      via,
      blocks: blocks.length,
      chainEvents,
      posts: events.length,
      seconds: (tVisible - t0) / 1000,
      postP50: latencies.length > 0 ? quantile(latencies, 0.5) : NaN,
      postP99: latencies.length > 0 ? quantile(latencies, 0.99) : NaN,
      tipLagMs: tVisible - tLastPost,
      cpuMsPerBlock: cpuTotal / Math.max(blocks.length, 1),
      cpuMs,
    };
  } finally {
    await watch.close();
    await sys.stop();
  }
}

const ms = (x: number) => (Number.isNaN(x) ? '-' : `${x.toFixed(2)}ms`);
const key = (r: Pick<Result, 'name' | 'bus' | 'via'>) => `${r.name}|${r.bus}|${r.via}`;

/** One run's line, as it completes. */
function printRun(r: Result): void {
  const c = r.cpuMs;
  const per = (x: number) => (x / Math.max(r.blocks, 1)).toFixed(1);
  console.log(
    `  ${r.name.padEnd(20)} ${r.bus.padEnd(9)} ${r.via.padEnd(7)} ${(r.blocks / r.seconds).toFixed(1).padStart(7)} blocks/s ` +
      `${(r.chainEvents / r.seconds).toFixed(1).padStart(8)} events/s  POST ${ms(r.postP50)} / ${ms(r.postP99)}  tip lag ${r.tipLagMs.toFixed(0)}ms  ` +
      `CPU/blk ${r.cpuMsPerBlock.toFixed(1)}ms (intake ${per(c.intake)}, indexer ${per(c.indexer)}, PostgreSQL ${per(c.postgres)}, Kafka ${per(c.kafka)})`,
  );
}

/** The median (min–max) of each combination's runs. */
function printSummary(results: Result[], rounds: number): void {
  const groups = new Map<string, Result[]>();
  for (const r of results) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  console.log(
    `\n${new Date().toISOString()}: median (min–max) of ${rounds} alternating round(s); every run ended with no dead letter and the expected tip`,
  );
  console.log(
    '| dataset | bus | via | blocks/s | events/s | POST p50 / p99 ms | tip lag ms | CPU/block ms (all) | intake | indexer | PostgreSQL | Kafka |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const rs of groups.values()) {
    const r0 = rs[0]!;
    const f = (pick: (r: Result) => number, digits: number) => formatSpread(rs.map(pick), digits);
    const perBlock = (pick: (c: Result['cpuMs']) => number) => f((r) => pick(r.cpuMs) / Math.max(r.blocks, 1), 1);
    console.log(
      `| ${r0.name} | ${r0.bus} | ${r0.via} | ${f((r) => r.blocks / r.seconds, 1)} | ${f((r) => r.chainEvents / r.seconds, 1)} | ` +
        `${r0.via === 'node' ? `${f((r) => r.postP50, 2)} / ${f((r) => r.postP99, 1)}` : '—'} | ${f((r) => r.tipLagMs, 0)} | ` +
        `${f((r) => r.cpuMsPerBlock, 1)} | ${perBlock((c) => c.intake)} | ${perBlock((c) => c.indexer)} | ${perBlock((c) => c.postgres)} | ` +
        `${r0.bus === 'kafka' ? perBlock((c) => c.kafka) : '—'} |`,
    );
  }
  console.log(
    `\nthe reference importer (${REFERENCE.source}; not measured here): mocknet.tsv ${REFERENCE.mocknet.blocksPerSec} blocks/s and ` +
      `${REFERENCE.mocknet.eventsPerSec} events/s, all fixtures ${REFERENCE.allFixtures.blocksPerSec} blocks/s and ${REFERENCE.allFixtures.eventsPerSec} events/s, ` +
      `per block p50 ${REFERENCE.perBlockP50Ms} ms and p99 ${REFERENCE.perBlockP99Ms} ms, about ${REFERENCE.cpuMsPerBlock} ms of CPU a block with its PostgreSQL.`,
  );
  console.log(
    `issue #2's bars (5× those over Kafka): mocknet.tsv ≥ ${5 * REFERENCE.mocknet.blocksPerSec} blocks/s, all fixtures ≥ ${5 * REFERENCE.allFixtures.blocksPerSec} blocks/s; ` +
      `compare them with the medians above, and CPU a block with the "all" column (it counts PostgreSQL, as the reference's did, and the broker).`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      blocks: { type: 'string', default: '2000' },
      txs: { type: 'string', default: '50' },
      bus: { type: 'string', default: 'kafka,postgres' },
      /** How events arrive: POSTed one at a time like a node (`node`), or `npm run import` onto the bus (`import`). */
      via: { type: 'string', default: 'node,import' },
      /** Rounds of every run (alternating order); the summary gives the median and the spread. */
      rounds: { type: 'string', default: '3' },
      'skip-generated': { type: 'boolean', default: false },
      /** Messages produced and consumed on a throwaway topic to warm the Kafka broker's JVM first. */
      'warm-up': { type: 'string', default: '20000' },
      'cold-broker': { type: 'boolean', default: false },
      /** Run the broker's JVM with HotSpot's default JIT tiers (C2 included) instead of the test broker's C1 only. */
      'broker-c2': { type: 'boolean', default: false },
      /** Run the services from their TypeScript sources through tsx instead of the built bundles `make start` runs. */
      sources: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      'npx tsx bench/ingest/run.ts [--blocks 2000] [--txs 50] [--bus kafka,postgres] [--via node,import] [--rounds 3] [--skip-generated] [--warm-up 20000 | --cold-broker] [--broker-c2] [--sources]',
    );
    return;
  }
  const buses = values.bus!.split(',') as Array<'kafka' | 'postgres'>;
  const vias = values.via!.split(',') as Array<'node' | 'import'>;
  const rounds = Number(values.rounds);
  const tmp = join(ROOT, '.tmp', `bench-ingest-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  console.log(`measuring ${await useBuiltServices(tmp, values.sources!)}`);
  const pg = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: true });
  const kafka = buses.includes('kafka')
    ? await startKafka({ dataDir: join(tmp, 'kafka'), fresh: true, ...(values['broker-c2'] ? { jitArgs: [] } : {}) })
    : null;
  const results: Result[] = [];
  let failed = false;
  try {
    const all = FIXTURE_FILES.flatMap((f) => loadFixture(f));
    // A broker in production has been running for weeks; this one was just started and its JVM still compiles
    // its hot paths (per message it costs several times the CPU it costs once warm, and it shares the two cores
    // with the services). Warm it with produce/fetch traffic of fixture-sized messages on a throwaway topic
    // before measuring. The services themselves start cold for every dataset.
    if (kafka && !values['cold-broker']) await warmBroker(kafka.brokers, Number(values['warm-up']));
    const chain = values['skip-generated']
      ? null
      : generateChain({ blocks: Number(values.blocks), txsPerBlock: Number(values.txs), ...fixtureTransferPool() });
    const datasets: Array<{ name: string; events: RecordedEvent[]; tip: ExpectedTip }> = [
      { name: 'mocknet.tsv', events: loadFixture('mocknet.tsv'), tip: expectedTip([], ['mocknet.tsv']) },
      // All fixtures one after the other into one system, as the reference measured them (separate chains
      // sharing a genesis: later files arrive as forks).
      { name: 'all fixtures', events: all, tip: expectedTip([], FIXTURE_FILES) },
      ...(chain ? [{ name: `generated ${values.blocks}x${values.txs}`, events: chain, tip: expectedTip(chain) }] : []),
    ];
    const runs = buses.flatMap((bus) => vias.flatMap((via) => datasets.map((d) => ({ ...d, bus, via }))));
    const infra: Infra = { serverUrl: pg.url, pgDataDir: join(tmp, 'pg'), kafka, tmp };
    for (let round = 0; round < rounds; round++) {
      // Alternating: each round starts one run further along, so no run always follows the same one.
      const order = runs.map((_, i) => runs[(i + round) % runs.length]!);
      console.log(`round ${round + 1}/${rounds}, load average ${loadavg()[0]!.toFixed(2)}`);
      for (const r of order) {
        const result = await runOne(r.name, r.events, r.tip, r.bus, r.via, infra);
        results.push(result);
        printRun(result);
      }
    }
    printSummary(results, rounds);
  } catch (err) {
    failed = true;
    console.error(err instanceof BenchInvalidError ? err.message : err);
  } finally {
    await kafka?.stop();
    await pg.stop();
    removeBenchDir(tmp);
  }
  if (failed) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
