/**
 * The rate limiter alone (not a test): CPU per decision and Redis script calls of the gateway's LeaseLimiter on a local
 * redis-server, with leases (RATE_LIMIT_LEASE_MAX=64, the default) and without (1: every request decided in Redis,
 * the requests of one turn of the event loop in one call, as before ADR 0026). One hot subject (a key with a high
 * custom limit, as in bench/proxy), BENCH_CONCURRENCY checks in flight, each awaited and followed by a turn of the
 * event loop (as requests arrive). Rounds alternate the two; medians with their spread.
 *
 *   npx tsx bench/proxy/limiter.ts      env: BENCH_CHECKS=20000 BENCH_CONCURRENCY=8 BENCH_ROUNDS=3
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedis } from '@bda/test-support';
import { LeaseLimiter, RedisLeaseBackend, type Subject } from '@bda/gateway';
import { formatSpread } from '../spread';

const ROOT = join(import.meta.dirname, '../..');
const TMP = join(ROOT, '.tmp', `bench-limiter-${process.pid}`);
const CHECKS = Number(process.env.BENCH_CHECKS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const subject: Subject = { id: 'key:1', tier: 'custom', limits: { perMinute: 2_000_000_000, burst: 2_000_000_000 } };

async function scriptCalls(r: Redis): Promise<number> {
  const info = await r.info('commandstats');
  let n = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) n += Number(m[1]);
  return n;
}

async function run(url: string, admin: Redis, maxUnits: number, round: number): Promise<{ cpuUs: number; calls: number }> {
  const client = new Redis(url, { enableAutoPipelining: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  await new Promise((r) => client.once('ready', r));
  const limiter = new LeaseLimiter(new RedisLeaseBackend(client, `bench:${maxUnits}:${round}:`), { maxUnits });
  const calls0 = await scriptCalls(admin);
  const cpu0 = process.cpuUsage();
  let started = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (started < CHECKS) {
        started++;
        if (!(await limiter.check(subject)).allowed) refused++;
        await new Promise((r) => setImmediate(r));
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const calls = (await scriptCalls(admin)) - calls0;
  await limiter.close();
  client.disconnect();
  if (refused > 0) throw new Error(`${refused} checks refused: the subject's limit is not what this bench measures`);
  return { cpuUs: (cpu.user + cpu.system) / CHECKS, calls };
}

async function main(): Promise<void> {
  const redis = await startRedis({ dataDir: join(TMP, 'redis') });
  const admin = new Redis(redis.url);
  const results = new Map<number, Array<{ cpuUs: number; calls: number }>>([
    [1, []],
    [64, []],
  ]);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const maxUnits of round % 2 === 0 ? [1, 64] : [64, 1])
        results.get(maxUnits)!.push(await run(redis.url, admin, maxUnits, round));
    }
  } finally {
    admin.disconnect();
    await redis.stop();
    rmSync(TMP, { recursive: true, force: true });
  }
  console.log(`${CHECKS} checks of one subject, ${CONCURRENCY} in flight; median (min–max) of ${ROUNDS} alternating rounds:`);
  console.log('| RATE_LIMIT_LEASE_MAX | CPU µs per decision (this process) | script calls |');
  console.log('|---|---:|---:|');
  for (const [maxUnits, rs] of results) {
    console.log(
      `| ${maxUnits} | ${formatSpread(
        rs.map((r) => r.cpuUs),
        1,
      )} | ${formatSpread(
        rs.map((r) => r.calls),
        0,
      )} |`,
    );
  }
}

void main();
