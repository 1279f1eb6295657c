/**
 * bench/live/run: idle live subscribers on one api process (issue 25, ADR 0025): the api's memory per connection, and
 * the time from the indexer's commit of a block to the last subscriber receiving it, with 1, 100 and 10,000
 * subscribers (not a test; no assertions on speed).
 *
 * One system on an embedded PostgreSQL started with `track_commit_timestamp = on`: observer, indexer (the PostgreSQL
 * bus) and one api process (`API_WORKERS=1`, the built bundles as `make start` runs them, `LOG_LEVEL=warn`). The
 * subscribers are official clients (`subscribers.ts`: `StacksApiSocketClient`, or `StacksApiWebSocketClient` with
 * `BENCH_PROTOCOL=json-rpc`), each its own connection subscribed to `block`, spread over BENCH_CLIENT_PROCS processes
 * other than the api's (one process may hold at most `ulimit -n` descriptors, 20,000 on the development machine).
 *
 * Each round starts a fresh api process, then runs every size once, in alternating order (1, 100, 10,000, then
 * 10,000, 100, 1). For a size: the api's RSS (`/proc`) and V8 heap (its `/metrics`) before the connections and once
 * its `api_live_connections` and `api_live_subscriptions` gauges count them all; then one warm-up block and BENCH_BLOCKS
 * blocks, each posted to the observer once every subscriber has the one before (idle subscribers, one block at a
 * time). A block's latency is from its commit by the indexer (PostgreSQL's commit timestamp of the transaction that
 * wrote its row, the transaction that announced it) to the moment the last subscriber's callback ran (`Date.now()` in
 * the subscriber processes, the same clock on one machine); the subscriber processes' own handling of the messages
 * is thus included. The work is checked before any figure is printed: every connection must have received exactly the
 * blocks posted, once each and in height order, else `BENCH INVALID` and exit 1.
 *
 *   npx tsx bench/live/run.ts
 *   env: BENCH_SUBSCRIBERS=1,100,10000 BENCH_ROUNDS=3 BENCH_BLOCKS=20 BENCH_CLIENT_PROCS=2 BENCH_PROTOCOL=socket.io
 *        BENCH_SOURCES=1 (the services from their sources through tsx instead of the built bundles) BENCH_KEEP=1
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { removeBenchDir } from '../ingest/bench-dir';
import { useBuiltServices } from '../ingest/built-services';
import { BenchInvalidError, formatSpread } from '../spread';
import type { Protocol, SubscriberReply, SubscriberRequest } from './subscribers';

const SIZES = (process.env.BENCH_SUBSCRIBERS ?? '1,100,10000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20);
const CLIENT_PROCS = Number(process.env.BENCH_CLIENT_PROCS ?? 2);
const PROTOCOL = (process.env.BENCH_PROTOCOL ?? 'socket.io') as Protocol;
/** Longest wait for one block to reach every subscriber, or for the connections to open: past it the run is invalid. */
const WAIT_MS = 180_000;

const MiB = 1024 * 1024;

/** A process of subscribers (`subscribers.ts`), asked one thing at a time. */
class SubscriberProcess {
  readonly child: ChildProcess;
  /** Connections it holds now. */
  count = 0;
  private pending: ((m: SubscriberReply) => void) | undefined;

  constructor() {
    this.child = fork(join(import.meta.dirname, 'subscribers.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: SubscriberReply) => {
      const p = this.pending;
      this.pending = undefined;
      p?.(m);
    });
  }

  request<T extends SubscriberReply['type']>(
    msg: SubscriberRequest,
    expected: T,
  ): Promise<Extract<SubscriberReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new BenchInvalidError(`a subscriber process did not answer ${msg.type} within ${WAIT_MS / 1000} s`)),
        WAIT_MS,
      );
      this.pending = (m) => {
        clearTimeout(timer);
        if (m.type === expected) resolve(m as Extract<SubscriberReply, { type: T }>);
        else reject(new BenchInvalidError(`a subscriber process answered ${m.type} to ${msg.type}: ${JSON.stringify(m)}`));
      };
      this.child.send(msg);
    });
  }
}

/** A made-up Stacks 2.x block (no transaction) on `parent`; the first one's parent is unknown and starts the chain. */
function blockBody(runId: string, height: number, parentHash: string): { hash: string; body: string } {
  const h = (label: string) => `0x${createHash('sha256').update(`${runId} ${label} ${height}`).digest('hex')}`;
  const hash = h('index');
  const burnHeight = 1_000 + height;
  const body = {
    index_block_hash: hash,
    block_hash: h('block'),
    block_height: height,
    parent_index_block_hash: parentHash,
    parent_block_hash: h('parent block'),
    parent_microblock: `0x${'00'.repeat(32)}`,
    parent_microblock_sequence: 0,
    burn_block_hash: h('burn'),
    burn_block_height: burnHeight,
    burn_block_time: 1_700_000_000 + height,
    parent_burn_block_hash: h('parent burn'),
    parent_burn_block_height: burnHeight - 1,
    parent_burn_block_timestamp: 1_699_999_999 + height,
    miner_txid: h('miner'),
    transactions: [],
    events: [],
    matured_miner_rewards: [],
  };
  return { hash, body: JSON.stringify(body) };
}

/** The api process's resident memory (bytes), from /proc. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? NaN) * 1024;
}

/** The api's live gauges and V8 heap, from its `/metrics`. */
async function apiGauges(apiUrl: string): Promise<{ connections: number; subscriptions: number; heapUsed: number }> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
      .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return {
    connections: sum('api_live_connections'),
    subscriptions: sum('api_live_subscriptions'),
    heapUsed: sum('nodejs_heap_size_used_bytes'),
  };
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new BenchInvalidError(`${what}: not within ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

const uptime = () => execFileSync('uptime').toString().trim();

interface PhaseResult {
  size: number;
  round: number;
  rssPerConn: number;
  heapPerConn: number;
  connectS: number;
  /** Commit → last subscriber, ms, per measured block. */
  last: number[];
  /** Commit → the median subscriber, ms, per measured block. */
  median: number[];
  load: string;
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(
      'npx tsx bench/live/run.ts   (env: BENCH_SUBSCRIBERS=1,100,10000 BENCH_ROUNDS=3 BENCH_BLOCKS=20 BENCH_CLIENT_PROCS=2 BENCH_PROTOCOL=socket.io|json-rpc BENCH_SOURCES=1 BENCH_KEEP=1)',
    );
    return;
  }
  const fdLimit = Number(execFileSync('bash', ['-c', 'ulimit -n']).toString().trim());
  const perProc = Math.ceil(Math.max(...SIZES) / CLIENT_PROCS);
  // The api holds every connection plus its pools, logs and listener; each subscriber process its share.
  if (Math.max(...SIZES) + 200 > fdLimit || perProc + 200 > fdLimit) {
    throw new BenchInvalidError(
      `ulimit -n is ${fdLimit}: too few descriptors for ${Math.max(...SIZES)} connections on the api (${perProc} per subscriber process); raise it or BENCH_CLIENT_PROCS`,
    );
  }
  const runId = randomBytes(4).toString('hex');
  const tmp = join(ROOT, '.tmp', `bench-live-${runId}`);
  console.log(`measuring ${await useBuiltServices(tmp, process.env.BENCH_SOURCES === '1')}, ${PROTOCOL} subscribers`);
  console.log(`start: ${new Date().toISOString()}; ulimit -n ${fdLimit}; ${uptime()}`);
  const server = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: true, settings: { track_commit_timestamp: 'on' } });
  const procs: SubscriberProcess[] = [];
  let sys: TestSystem | undefined;
  let db: pg.Client | undefined;
  try {
    sys = await TestSystem.start({
      bus: 'postgres',
      serverUrl: server.url,
      kafkaBrokers: '',
      services: ['indexer', 'observer', 'api'],
      env: { LOG_LEVEL: 'warn', API_WORKERS: '1' },
    });
    db = new pg.Client(sys.databaseUrl);
    await db.connect();
    for (let i = 0; i < CLIENT_PROCS; i++) procs.push(new SubscriberProcess());

    let height = 0;
    let parent = `0x${createHash('sha256').update(`${runId} genesis parent`).digest('hex')}`;
    /** Posts the next block and waits until every subscriber has it: its latencies (ms) from the commit. */
    const block = async (): Promise<{ height: number; last: number; median: number }> => {
      height += 1;
      const b = blockBody(runId, height, parent);
      parent = b.hash;
      const receivedAt = new Date().toISOString().replace('T', ' ').replace('Z', '+00');
      await replayEvents([{ id: String(height), receivedAt, path: '/new_block', body: b.body }], {
        observerUrl: sys!.observerUrl,
        maxRetryMs: 30_000,
      });
      const holders = procs.filter((p) => p.count > 0);
      const replies = await Promise.all(holders.map((p) => p.request({ type: 'await', height }, 'received')));
      const times = replies.flatMap((r) => r.times).sort((x, y) => x - y);
      const { rows } = await db!.query<{ ms: number }>(
        'SELECT (extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000)::float8 AS ms FROM blocks WHERE index_block_hash = $1 AND canonical',
        [b.hash],
      );
      if (rows.length !== 1) throw new BenchInvalidError(`block ${height} is not canonical`);
      const commit = rows[0]!.ms;
      return { height, last: times.at(-1)! - commit, median: percentile(times, 0.5) - commit };
    };

    const results: PhaseResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // A fresh api process each round: its memory before the connections is the same start every time.
      const listeners = async () =>
        (
          await db!.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE application_name = 'bda-api-live' AND datname = current_database() AND query ILIKE 'LISTEN%'`,
          )
        ).rows.map((r) => r.pid);
      const before = new Set(await listeners());
      await sys.stopService('api');
      await sys.startService('api');
      // The new process listens on the indexer's channel (its own LISTEN connection) before the first block is posted.
      await waitFor('the api listens for announcements', async () => (await listeners()).some((pid) => !before.has(pid)));
      const apiPid = sys.procs.get('api')!.child.pid!;
      const order = round % 2 === 1 ? SIZES : [...SIZES].reverse();
      for (const size of order) {
        const load = uptime();
        const rss0 = rssOf(apiPid);
        const heap0 = (await apiGauges(sys.apiUrl)).heapUsed;
        console.log(`round ${round}, ${size} subscribers: connecting…`);
        const t0 = performance.now();
        await Promise.all(
          procs.map((p, i) => {
            const share = Math.floor(size / CLIENT_PROCS) + (i < size % CLIENT_PROCS ? 1 : 0);
            p.count = share;
            return share > 0
              ? p.request({ type: 'connect', url: sys!.apiUrl, count: share, protocol: PROTOCOL }, 'connected')
              : undefined;
          }),
        );
        await waitFor(`the api counts ${size} connections`, async () => {
          const g = await apiGauges(sys!.apiUrl);
          return g.connections === size && g.subscriptions === size;
        });
        const connectS = (performance.now() - t0) / 1000;
        const rss1 = rssOf(apiPid);
        const heap1 = (await apiGauges(sys.apiUrl)).heapUsed;

        const heights: number[] = [];
        const first = await block(); // warm-up: not measured, but checked like the others
        heights.push(first.height);
        const last: number[] = [];
        const median: number[] = [];
        for (let i = 0; i < BLOCKS; i++) {
          const r = await block();
          heights.push(r.height);
          last.push(r.last);
          median.push(r.median);
        }
        // The work was done: every connection received exactly these blocks, once each, in height order.
        const checks = await Promise.all(
          procs.filter((p) => p.count > 0).map((p) => p.request({ type: 'check', heights }, 'checked')),
        );
        const held = checks.reduce((n, c) => n + c.connections, 0);
        const wrong = checks.reduce((n, c) => n + c.wrong, 0);
        if (held !== size || wrong > 0) {
          const example = checks.find((c) => c.example)?.example;
          throw new BenchInvalidError(
            `${size} subscribers: ${held} connections held, ${wrong} did not receive exactly blocks ${heights[0]}–${heights.at(-1)} (e.g. ${JSON.stringify(example)})`,
          );
        }
        await Promise.all(procs.filter((p) => p.count > 0).map((p) => p.request({ type: 'close' }, 'closed')));
        for (const p of procs) p.count = 0;
        await waitFor('the api sees every connection closed', async () => (await apiGauges(sys!.apiUrl)).connections === 0);

        const sorted = [...last].sort((x, y) => x - y);
        const res: PhaseResult = {
          size,
          round,
          rssPerConn: (rss1 - rss0) / size,
          heapPerConn: (heap1 - heap0) / size,
          connectS,
          last,
          median,
          load,
        };
        results.push(res);
        console.log(
          `round ${round}, ${size} subscribers: connected in ${connectS.toFixed(1)} s; api RSS ${((rss1 - rss0) / MiB).toFixed(1)} MiB more ` +
            `(${(res.rssPerConn / 1024).toFixed(2)} KiB a connection), heap ${((heap1 - heap0) / MiB).toFixed(1)} MiB more; ` +
            `commit → last subscriber p50 ${percentile(sorted, 0.5).toFixed(0)} ms, p99 ${percentile(sorted, 0.99).toFixed(0)} ms ` +
            `(${BLOCKS} blocks, all received by all); ${load}`,
        );
      }
    }

    console.log(`\nend: ${new Date().toISOString()}; ${uptime()}`);
    console.log(
      `\n${PROTOCOL}, ${ROUNDS} rounds, ${BLOCKS} blocks a size and round; median (min–max) of the rounds' figures; every subscriber received every block once, in order`,
    );
    console.log(
      '| subscribers | commit → last, p50 ms | commit → last, p99 ms | commit → median subscriber, p50 ms | api RSS a connection | api heap a connection | connect s |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const size of SIZES) {
      const rs = results.filter((r) => r.size === size);
      const p = (q: number, pick: (r: PhaseResult) => number[]) =>
        rs.map((r) =>
          percentile(
            [...pick(r)].sort((x, y) => x - y),
            q,
          ),
        );
      const mem = (pick: (r: PhaseResult) => number) =>
        size >= 100
          ? formatSpread(
              rs.map((r) => pick(r) / 1024),
              2,
              ' KiB',
            )
          : '-';
      console.log(
        `| ${size.toLocaleString('en')} | ${formatSpread(
          p(0.5, (r) => r.last),
          0,
        )} | ${formatSpread(
          p(0.99, (r) => r.last),
          0,
        )} | ` +
          `${formatSpread(
            p(0.5, (r) => r.median),
            0,
          )} | ${mem((r) => r.rssPerConn)} | ${mem((r) => r.heapPerConn)} | ` +
          `${formatSpread(
            rs.map((r) => r.connectS),
            1,
          )} |`,
      );
    }
  } catch (err) {
    // What the services said last (warnings and errors: LOG_LEVEL=warn), for a run that failed.
    if (sys) console.error(sys.logs.slice(-30).join('\n'));
    throw err;
  } finally {
    for (const p of procs) p.child.kill();
    await db?.end();
    await sys?.stop();
    await server.stop();
    removeBenchDir(tmp);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? err.message : err);
  process.exit(1);
});
