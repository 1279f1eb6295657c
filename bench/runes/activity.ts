/**
 * Block activity endpoint benchmark (not a test): `GET /runes/v1/blocks/{block}/activity` over a ledger of
 * 1,000,900 activity rows (one 900-row block, a hundred 10,000-row blocks), requests/s and p50/p99 latency with
 * BENCH_CONNECTIONS connections, directly on the api and through the gateway (rate limiting off), side by side with
 * the bars: ≥ 4× 471 req/s (900-row block), ≥ 20× 83 req/s (10,000-row block), ≥ 100× 8 req/s (block named by
 * hash) — the reference service's figures. Prints figures and ratios; asserts nothing.
 *
 * The rows are generated in SQL (generate_series) straight into the ledger tables, numbered as the indexer numbers
 * them. Load: Debian's `wrk` when installed (apt-get install wrk), else a small keep-alive Node generator.
 *
 *   npx tsx bench/runes/activity.ts
 *   env: BENCH_SECONDS=10 BENCH_CONNECTIONS=32 DATABASE_URL=<server url> (default: embedded PostgreSQL under .tmp/)
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, freePort, startPostgres } from '@bda/test-support';
import { startService, stopService, waitForHttp, type ServiceProcess } from '../../scripts/lib/service-process';

const ROOT = join(import.meta.dirname, '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SMALL_ROWS = 900;
const BIG_ROWS = 10_000;
const BIG_BLOCKS = 100;
const RUNES = 1_000;
const ADDRESSES = 50_000;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function hasWrk(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const toMs = (value: string, unit: string) => Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);

function wrk(url: string, seconds: number): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${out}`));
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
      const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
      const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
      const socket = /Socket errors:.*?(\d+).*?(\d+).*?(\d+).*?(\d+)/.exec(out);
      if (!rps || !p50 || !p99) return reject(new Error(`cannot read wrk output:\n${out}`));
      resolve({
        rps: Number(rps[1]),
        p50: toMs(p50[1]!, p50[2]!),
        p99: toMs(p99[1]!, p99[2]!),
        errors: Number(non2xx?.[1] ?? 0) + (socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0),
      });
    });
  });
}

/** Fallback: CONNECTIONS keep-alive loops for `seconds`. */
async function nodeLoad(url: string, seconds: number): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = process.hrtime.bigint();
      const req = request(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    errors,
  };
}

/** 1,000,900 rows: block 1 has 900, blocks 2–101 have 10,000; operations cycle, runes and addresses rotate. */
export async function seed(databaseUrl: string): Promise<void> {
  const db = createDb({ connectionString: databaseUrl, maxConnections: 1 });
  try {
    await migrateLatest(db);
    const t0 = Date.now();
    await db.raw(`
      INSERT INTO runes (number, block_height, tx_index, rune, spacers, divisibility, symbol, premine, has_terms, turbo,
                         etching_tx_id, etching_block_hash, block_time)
      SELECT g, 1, g + 1, 1000000000000000 + g, 0, g % 4, NULL, 0, false, false,
             '0x' || encode(sha256(('etch' || g)::bytea), 'hex'), '0x' || encode(sha256('block1'::bytea), 'hex'), 1700000000
      FROM generate_series(0, ${RUNES - 1}) g`);
    await db.raw(`
      INSERT INTO rune_blocks (block_height, block_hash, prev_hash, block_time, tx_count, activity_count,
                               etching_count, mint_count, burn_count, send_count, receive_count)
      SELECT h, '0x' || encode(sha256(('block' || h)::bytea), 'hex'), '0x' || encode(sha256(('block' || (h - 1))::bytea), 'hex'),
             1700000000 + 600 * h, 0, 0, 0, 0, 0, 0, 0
      FROM generate_series(1, ${BIG_BLOCKS + 1}) h`);
    // g: the row's global index (base of its block + position).
    await db.raw(`
      INSERT INTO rune_activity
      SELECT h, p, p / 4 + 1, '0x' || lpad(to_hex(g / 4), 64, '0'), (g % ${RUNES})::int, (p % 5)::smallint,
             'bc1q' || lpad(to_hex(g % ${ADDRESSES}), 38, '0'),
             CASE WHEN p % 5 = 3 THEN 'bc1q' || lpad(to_hex((g + 7) % ${ADDRESSES}), 38, '0') END,
             CASE WHEN p % 5 <> 0 THEN g % 100000 + 1 END,
             CASE WHEN p % 5 > 1 THEN p % 4 END,
             p / 5, (p + 4) / 5, (p + 3) / 5, (p + 2) / 5, (p + 1) / 5, p / 5,
             g / ${RUNES}, g / ${ADDRESSES}, g / ${ADDRESSES}
      FROM (
        SELECT h, p, (CASE WHEN h = 1 THEN 0 ELSE ${SMALL_ROWS} + (h - 2) * ${BIG_ROWS} END) + p AS g
        FROM generate_series(1, ${BIG_BLOCKS + 1}) h,
             LATERAL generate_series(0, (CASE WHEN h = 1 THEN ${SMALL_ROWS} ELSE ${BIG_ROWS} END) - 1) p
      ) rows`);
    await db.raw(`
      UPDATE rune_blocks b SET activity_count = a.n, etching_count = a.e, mint_count = a.m, burn_count = a.u,
             send_count = a.s, receive_count = a.r, tx_count = a.t + 1
      FROM (SELECT block_height, count(*) n, count(*) FILTER (WHERE operation = 0) e, count(*) FILTER (WHERE operation = 1) m,
                   count(*) FILTER (WHERE operation = 2) u, count(*) FILTER (WHERE operation = 3) s,
                   count(*) FILTER (WHERE operation = 4) r, max(tx_index) t
            FROM rune_activity GROUP BY 1) a
      WHERE a.block_height = b.block_height`);
    await db.raw(`
      INSERT INTO rune_txs SELECT tx_id, block_height, min(tx_index), min(position), count(*)
      FROM rune_activity GROUP BY tx_id, block_height`);
    await db.raw(`
      UPDATE runes r SET activity_count = a.n, burn_count = a.b
      FROM (SELECT rune_number, count(*) n, count(*) FILTER (WHERE operation = 2) b FROM rune_activity GROUP BY 1) a
      WHERE a.rune_number = r.number`);
    await db.raw('VACUUM ANALYZE');
    const n = Number((await db('rune_activity').count({ n: '*' }))[0]!.n);
    console.log(`seeded ${n.toLocaleString('en')} activity rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  const procs: ServiceProcess[] = [];
  try {
    let serverUrl = process.env.DATABASE_URL;
    if (!serverUrl) {
      const dir = join(ROOT, '.tmp', `bench-runes-activity-${process.pid}`);
      const pg = await startPostgres({ dataDir: join(dir, 'pg'), fresh: true });
      serverUrl = pg.url;
      stops.push(async () => {
        await pg.stop();
        rmSync(dir, { recursive: true, force: true });
      });
    }
    const databaseUrl = await createTestDatabase(serverUrl, 'bench_runes');
    await seed(databaseUrl);
    const db = createDb({ connectionString: databaseUrl, maxConnections: 1 });
    const { block_hash: hash } = (await db('rune_blocks').where({ block_height: 50 }).first('block_hash')) as {
      block_hash: string;
    };
    await db.destroy();

    const apiPort = await freePort();
    const gatewayPort = await freePort();
    const quiet = () => {};
    const common = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', KAFKA_BROKERS: '', REDIS_URL: undefined };
    procs.push(startService('api', { ...common, API_PORT: String(apiPort), API_HOST: '127.0.0.1' }, quiet));
    await waitForHttp(`http://127.0.0.1:${apiPort}/readyz`);
    procs.push(
      startService(
        'gateway',
        {
          ...common,
          GATEWAY_PORT: String(gatewayPort),
          HOST: '127.0.0.1',
          GATEWAY_WORKERS: '1',
          API_URLS: `http://127.0.0.1:${apiPort}`,
          NODE_RPC_URLS: 'http://127.0.0.1:9',
          RATE_LIMIT_ENABLED: 'false',
          ACCESS_LOG: 'false',
        },
        quiet,
      ),
    );
    await waitForHttp(`http://127.0.0.1:${gatewayPort}/healthz`);

    const load = hasWrk() ? wrk : nodeLoad;
    console.log(
      `load: ${hasWrk() ? 'wrk' : 'node'} with ${CONNECTIONS} connections, ${SECONDS} s per run, loopback; ${availableParallelism()} cores shared by the load generator, gateway, api and PostgreSQL; load average ${loadavg()[0]!.toFixed(2)}\n`,
    );
    const scenarios: Array<{ name: string; path: string; reference?: number; factor?: number }> = [
      { name: '900-row block, by height', path: '/runes/v1/blocks/1/activity', reference: 471, factor: 4 },
      { name: '10,000-row block, by height', path: '/runes/v1/blocks/50/activity', reference: 83, factor: 20 },
      { name: '10,000-row block, by hash', path: `/runes/v1/blocks/${hash}/activity`, reference: 8, factor: 100 },
      { name: '10,000-row block, last page (offset 9,940, limit 60)', path: '/runes/v1/blocks/50/activity?offset=9940&limit=60' },
      {
        name: '10,000-row block, operation=send,receive offset 3,000',
        path: '/runes/v1/blocks/50/activity?operation=send,receive&offset=3000',
      },
    ];
    const header = `${'scenario'.padEnd(54)} ${'target'.padStart(9)} | ${'direct req/s'.padStart(12)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'×ref'.padStart(7)} | ${'gateway req/s'.padStart(13)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'×ref'.padStart(7)}`;
    console.log(header);
    console.log('-'.repeat(header.length));
    for (const s of scenarios) {
      const results: Load[] = [];
      for (const port of [apiPort, gatewayPort]) {
        const url = `http://127.0.0.1:${port}${s.path}`;
        const check = await fetch(url);
        if (check.status !== 200) throw new Error(`${url} answered ${check.status}: ${await check.text()}`);
        await check.arrayBuffer();
        await load(url, Math.min(2, SECONDS)); // warm-up
        results.push(await load(url, SECONDS));
      }
      const target = s.reference && s.factor ? s.reference * s.factor : undefined;
      const cell = (r: Load) =>
        `${r.rps.toFixed(0).padStart(12)} ${`${r.p50.toFixed(1)}ms`.padStart(7)} ${`${r.p99.toFixed(1)}ms`.padStart(7)} ${
          s.reference ? `${(r.rps / s.reference).toFixed(1)}×`.padStart(7) : ''.padStart(7)
        }${r.errors ? ` (${r.errors} errors)` : ''}`;
      const targetText = target ? `≥${target}` : '—';
      console.log(
        `${s.name.padEnd(54)} ${targetText.padStart(9)} | ${cell(results[0]!)} | ${cell(results[1]!).replace(/^ /, '  ')}`,
      );
      if (target) {
        const met = results.map((r) => (r.rps >= target ? 'met' : 'NOT met'));
        console.log(
          `${''.padEnd(54)} ${`(${s.factor}× ${s.reference})`.padStart(9)} | bar ${met[0]!.padEnd(40)} | bar ${met[1]}`,
        );
      }
    }
    console.log(`\nload average at the end ${loadavg()[0]!.toFixed(2)} (other work on the machine skews the figures)`);
  } finally {
    for (const p of procs.reverse()) await stopService(p);
    for (const stop of stops) await stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
