/**
 * bench/ingest: end-to-end ingestion through the real services (each its own process), for each bus.
 * From the first POST to the tip being visible through the api: blocks/s, chain events/s, per-POST
 * latency p50/p99, CPU per block (observer + indexer), and how long the tip took to show after the
 * last POST. Prints figures and the ratio against the reference API's importer on this kind of machine.
 *
 *   npx tsx bench/ingest/run.ts [--blocks 2000] [--txs 50] [--bus kafka,postgres] [--via node,import] [--skip-generated]
 *                               [--warm-up 20000 | --cold-broker] [--broker-c2] [--sources]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startKafka, startPostgres } from '@bda/test-support';
import type { RecordedEvent } from '@bda/observer';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { loadFixture } from '../../test/support/fixtures';
import { TestSystem } from '../../test/support/test-system';
import { FIXTURE_FILES, fixtureTransferPool, generateChain } from './generate-chain';
import { useBuiltServices } from './built-services';
import { cpuMs, procStat } from './proc-cpu';
import { warmBroker } from './warm-broker';
import { removeBenchDir } from './bench-dir';

/** The reference API's importer on this kind of machine (issue #2). */
const REFERENCE = {
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
  cpuMsPerBlock: number;
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

async function runOne(
  name: string,
  events: RecordedEvent[],
  bus: 'kafka' | 'postgres',
  via: 'node' | 'import',
  serverUrl: string,
  kafkaBrokers: string,
  tmp: string,
): Promise<Result> {
  const sys = await TestSystem.start({
    bus,
    serverUrl,
    kafkaBrokers,
    services: via === 'node' ? ['indexer', 'observer', 'api'] : ['indexer', 'api'],
    env: { LOG_LEVEL: 'warn' },
  });
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
    const cpu0 = pids.map(cpuMs);
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
    const maxHeight = Math.max(...blocks.map((b) => (JSON.parse(b.body) as { block_height: number }).block_height));
    // Everything posted applied (the last events may follow the last block), watched in the database so that the
    // bench's own polling costs the services next to nothing; then the tip as the api shows it.
    await sys.waitForAppliedFromDb(600_000, 2);
    const tApplied = performance.now();
    for (;;) {
      const res = await fetch(`${sys.apiUrl}/extended`);
      const body = (await res.json()) as { chain_tip?: { block_height: number } | null };
      if ((body.chain_tip?.block_height ?? -1) >= maxHeight || performance.now() - tLastAnswer > 600_000) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    const tVisible = performance.now();
    if (process.env.BENCH_DEBUG)
      console.log(
        `last event sent after ${(tLastPost - t0).toFixed(1)} ms and answered ${(tLastAnswer - tLastPost).toFixed(1)} ms later, applied ${(tApplied - tLastPost).toFixed(1)} ms after it was sent, tip visible ${(tVisible - tLastPost).toFixed(1)} ms`,
      );
    const cpu1 = pids.map(cpuMs);
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
    const cpu = cpu1.reduce((n, c, i) => n + c - cpu0[i]!, 0);
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
      cpuMsPerBlock: cpu / Math.max(blocks.length, 1),
    };
  } finally {
    await sys.stop();
  }
}

const ms = (x: number) => (Number.isNaN(x) ? '-' : `${x.toFixed(2)}ms`);

function print(results: Result[]): void {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(
    `\n${'dataset'.padEnd(22)} ${'bus'.padEnd(9)} ${'via'.padEnd(7)} ${pad('blocks', 7)} ${pad('events', 7)} ${pad('secs', 7)} ${pad('blocks/s', 9)} ${pad('events/s', 9)} ${pad('POST p50', 9)} ${pad('POST p99', 9)} ${pad('tip lag', 8)} ${pad('CPU/blk', 8)}`,
  );
  for (const r of results) {
    console.log(
      `${r.name.padEnd(22)} ${r.bus.padEnd(9)} ${r.via.padEnd(7)} ${pad(r.blocks, 7)} ${pad(r.chainEvents, 7)} ${pad(r.seconds.toFixed(2), 7)} ${pad((r.blocks / r.seconds).toFixed(1), 9)} ${pad((r.chainEvents / r.seconds).toFixed(1), 9)} ${pad(ms(r.postP50), 9)} ${pad(ms(r.postP99), 9)} ${pad(r.tipLagMs.toFixed(0) + 'ms', 8)} ${pad(r.cpuMsPerBlock.toFixed(1) + 'ms', 8)}`,
    );
  }
  console.log('\nagainst the reference importer (ours / reference; the bar is 5x over Kafka):');
  for (const r of results) {
    const ref = r.name === 'mocknet.tsv' ? REFERENCE.mocknet : r.name === 'all fixtures' ? REFERENCE.allFixtures : null;
    if (!ref) continue;
    console.log(
      `  ${r.name.padEnd(14)} ${r.bus.padEnd(9)} ${r.via.padEnd(7)} blocks/s ${(r.blocks / r.seconds / ref.blocksPerSec).toFixed(2)}x   events/s ${(r.chainEvents / r.seconds / ref.eventsPerSec).toFixed(2)}x   CPU/block ${(REFERENCE.cpuMsPerBlock / Math.max(r.cpuMsPerBlock, 0.01)).toFixed(2)}x less`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      blocks: { type: 'string', default: '2000' },
      txs: { type: 'string', default: '50' },
      bus: { type: 'string', default: 'kafka,postgres' },
      /** How events arrive: POSTed one at a time like a node (`node`), or `npm run import` onto the bus (`import`). */
      via: { type: 'string', default: 'node,import' },
      'skip-generated': { type: 'boolean', default: false },
      /** Messages produced and consumed on a throwaway topic to warm the Kafka broker's JVM first. */
      'warm-up': { type: 'string', default: '20000' },
      'cold-broker': { type: 'boolean', default: false },
      /** Run the broker's JVM with HotSpot's default JIT tiers (C2 included) instead of the test broker's C1 only. */
      'broker-c2': { type: 'boolean', default: false },
      /** Run the services from their TypeScript sources through tsx instead of the built bundles `make start` runs. */
      sources: { type: 'boolean', default: false },
    },
  });
  const buses = values.bus!.split(',') as Array<'kafka' | 'postgres'>;
  const vias = values.via!.split(',') as Array<'node' | 'import'>;
  const tmp = join(ROOT, '.tmp', `bench-ingest-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  console.log(`measuring ${await useBuiltServices(tmp, values.sources!)}`);
  const pg = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: true });
  const kafka = buses.includes('kafka')
    ? await startKafka({ dataDir: join(tmp, 'kafka'), fresh: true, ...(values['broker-c2'] ? { jitArgs: [] } : {}) })
    : null;
  const results: Result[] = [];
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
    for (const bus of buses) {
      for (const via of vias) {
        const brokers = kafka?.brokers ?? '';
        const run = (name: string, events: RecordedEvent[]) => runOne(name, events, bus, via, pg.url, brokers, tmp);
        results.push(await run('mocknet.tsv', loadFixture('mocknet.tsv')));
        // All fixtures one after the other into one system, as the reference measured them (separate chains
        // sharing a genesis: later files arrive as forks).
        results.push(await run('all fixtures', all));
        if (chain) results.push(await run(`generated ${values.blocks}x${values.txs}`, chain));
        print(results);
      }
    }
  } finally {
    await kafka?.stop();
    await pg.stop();
    removeBenchDir(tmp);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
