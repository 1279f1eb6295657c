import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, freePort, startRedis, type RunningRedis, testInfra } from '@bda/test-support';
import { LeaseLimiter } from '../src/rate-limit/lease-limiter';
import type { Subject } from '../src/rate-limit/policy';
import { RedisLeaseBackend } from '../src/rate-limit/redis-limiter';
import { createKeyWithCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request, waitFor, type Reply } from './support/http';
import { metricValue } from './support/metrics';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

const ROOT = join(import.meta.dirname, '../../..');

/**
 * The bound of ADR 0026 against a real Redis: with leases, no request is let through that the shared counts do not
 * hold (what passed is never more than what Redis counted, and what Redis counted in a window is never more than the
 * limit), a refusal comes early by at most the units the other processes hold unused (`cap - 1` each, cap = the
 * smallest of RATE_LIMIT_LEASE_MAX, burst / 20 and per-minute / 20), unused units go back, and leases end with the
 * connection: after a Redis restart every request let through is counted by the new Redis or was decided by the
 * local fallback.
 */

/** The windows of one subject's hash: what Redis counted in the current and the previous minute window. */
async function counted(redis: Redis, key: string): Promise<{ current: number; previous: number; total: number }> {
  const [mc, mp] = await redis.hmget(key, 'mc', 'mp');
  const current = Number(mc ?? 0);
  const previous = Number(mp ?? 0);
  return { current, previous, total: current + previous };
}

/** EVALSHA/EVAL calls Redis has run so far (its command statistics). */
async function scriptCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let n = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) n += Number(m[1]);
  return n;
}

describe('rate-limit leases in one process (a LeaseLimiter on a real Redis)', () => {
  const dataDir = join(ROOT, '.tmp', `redis-leases-${process.pid}`);
  let port: number;
  let server: RunningRedis;
  let redis: Redis;
  const prefix = `test:leases:${randomBytes(4).toString('hex')}:`;
  const clients: Redis[] = [];
  const limiters: LeaseLimiter[] = [];

  /** A limiter with its own connection, as a gateway process has. */
  function newLimiter(maxUnits = 64): LeaseLimiter {
    const client = new Redis(server.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(50 * times, 500),
    });
    client.on('error', () => undefined);
    clients.push(client);
    const limiter = new LeaseLimiter(new RedisLeaseBackend(client, prefix), { maxUnits });
    limiters.push(limiter);
    return limiter;
  }
  const ready = (l: LeaseLimiter) => waitFor(() => l.available, 10_000, 'the limiter to connect');
  let n = 0;
  /** A subject of its own for each test: `perMinute` a minute, `burst` a second. */
  const subject = (perMinute: number, burst: number): Subject => ({
    id: `s${n++}`,
    tier: 'custom',
    limits: { perMinute, burst },
  });
  const hashKey = (s: Subject) => `${prefix}rl:${s.id}`;

  beforeAll(async () => {
    port = await freePort();
    server = await startRedis({ dataDir, port });
    redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    for (const l of limiters) await l.close().catch(() => undefined);
    for (const c of clients) c.disconnect();
    redis?.disconnect();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives exact remaining figures while it leases, and counts every unit it took', async () => {
    const limiter = newLimiter();
    await ready(limiter);
    const s = subject(6000, 2000); // a lease of up to 64 units (6000 / 20 = 300, 2000 / 20 = 100)
    for (let i = 1; i <= 12; i++) {
      const d = await limiter.check(s);
      expect(d.allowed).toBe(true);
      // What this process may still send: the units it holds count as its own.
      expect(d.minute.remaining).toBe(6000 - i);
      expect((await counted(redis, hashKey(s))).total).toBe(i + limiter.heldUnits);
    }
  });

  it('serves a hot subject from leases: fewer script calls than requests, never more let through than counted', async () => {
    const limiter = newLimiter();
    await ready(limiter);
    const s = subject(100_000, 10_000); // cap: 64 units
    const callsBefore = await scriptCalls(redis);
    let admitted = 0;
    for (let round = 0; round < 40; round++) {
      const ds = await Promise.all(Array.from({ length: 5 }, () => limiter.check(s)));
      admitted += ds.filter((d) => d.allowed).length;
      // Never over: what was let through is counted; what is counted beyond it is held by this process, unused.
      expect((await counted(redis, hashKey(s))).total).toBe(admitted + limiter.heldUnits);
      expect(limiter.heldUnits).toBeLessThanOrEqual(63);
    }
    expect(admitted).toBe(200);
    // The leases grew while they were used up fast: fewer calls than rounds of five.
    expect((await scriptCalls(redis)) - callsBefore).toBeLessThan(40);
    // Once its burst window is over, the lease's unused units go back to Redis.
    await waitFor(async () => (await counted(redis, hashKey(s))).total === admitted, 10_000, 'the unused units to go back');
    expect(limiter.heldUnits).toBe(0);
  });

  it('never lets two processes through more than the limit, and refuses early by at most what they hold', async () => {
    const [a, b] = [newLimiter(), newLimiter()];
    await Promise.all([ready(a), ready(b)]);
    // 400 a minute, 4000 a second: the minute binds, a lease holds at most 400 / 20 = 20 units.
    const s = subject(400, 4000);
    let admitted = 0;
    let refused = 0;
    for (let round = 0; round < 100; round++) {
      const ds = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).check(s)));
      admitted += ds.filter((d) => d.allowed).length;
      refused += ds.filter((d) => !d.allowed).length;
      const c = await counted(redis, hashKey(s));
      expect(c.total).toBe(admitted + a.heldUnits + b.heldUnits);
      // In each fixed minute window Redis never counted more than the limit (two windows if the run straddled one).
      expect(c.current).toBeLessThanOrEqual(400);
      expect(c.previous).toBeLessThanOrEqual(400);
    }
    expect(refused).toBeGreaterThan(0);
    // The refusals came while at most 19 units per process were leased and unused.
    expect(admitted).toBeGreaterThanOrEqual(400 - 2 * 19);
  });

  it('drops its leases when the connection to Redis closes: after a restart, what it lets through is counted there', async () => {
    const limiter = newLimiter();
    await ready(limiter);
    const client = clients.at(-1)!;
    const s = subject(100_000, 10_000);
    for (let i = 0; i < 20 && limiter.heldUnits === 0; i++) await Promise.all(Array.from({ length: 3 }, () => limiter.check(s)));
    expect(limiter.heldUnits).toBeGreaterThan(0);

    // Redis restarts and forgets every count (no persistence). The limiter heard of the closed connection before this
    // listener (registered after its own) runs: by then it holds nothing.
    const heldAtClose = new Promise<number>((resolve) => client.once('close', () => resolve(limiter.heldUnits)));
    await server.stop();
    expect(await heldAtClose).toBe(0);
    server = await startRedis({ dataDir, port });
    await ready(limiter);
    let admitted = 0;
    for (let round = 0; round < 5; round++) {
      const ds = await Promise.all(Array.from({ length: 20 }, () => limiter.check(s)));
      admitted += ds.filter((d) => d.allowed).length;
    }
    expect(admitted).toBe(100);
    const fresh = new Redis(server.url, { maxRetriesPerRequest: 1 });
    clients.push(fresh);
    expect((await counted(fresh, hashKey(s))).total).toBe(admitted + limiter.heldUnits);
  });
});

/** Sends `total` requests over `lanes` concurrent sequences, alternating the gateways; returns the answers. */
async function load(gws: GatewayProcess[], total: number, lanes: number, headers: Record<string, string>): Promise<Reply[]> {
  const out: Reply[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let i = next++; i < total; i = next++)
        out.push(await request(gws[i % gws.length]!.port, { path: '/v2/info', headers }));
    }),
  );
  return out;
}

describe('rate-limit leases across two gateways (one of two workers: three processes), and a Redis restart', () => {
  const dataDir = join(ROOT, '.tmp', `redis-leases-gw-${process.pid}`);
  let redisPort: number;
  let server: RunningRedis;
  let redis: Redis;
  let databaseUrl: string;
  let nodes: StubNode[];
  let api: StubApi;
  let gws: GatewayProcess[] = [];
  const prefix = `test:leases-gw:${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    redisPort = await freePort();
    server = await startRedis({ dataDir, port: redisPort });
    redis = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_leases');
    nodes = await startStubNodes(1);
    api = await new StubApi('api1').start();
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: server.url,
      REDIS_KEY_PREFIX: prefix,
      NODE_RPC_URLS: nodes.map((x) => x.url).join(','),
      API_URLS: api.url,
      ACCESS_LOG: 'false',
      // The bound is about leases, not about Redis outages: a loaded test machine must not push slow replies into the
      // local fallback (which Redis does not count). A stopped Redis still fails at once (no offline queue).
      REDIS_COMMAND_TIMEOUT_MS: '5000',
    };
    gws = await Promise.all([startGatewayProcess({ ...env, GATEWAY_WORKERS: '2' }), startGatewayProcess(env)]);
  });

  afterAll(async () => {
    await Promise.all(gws.map((g) => g.stop()));
    await Promise.all((nodes ?? []).map((x) => x.stop()));
    await api?.stop();
    redis?.disconnect();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets through no more than Redis counted, each minute window within the limit, and gives unused units back', async () => {
    // 300 a minute, 6000 a second: a lease holds at most 15 units; three processes hold at most 3 × 14 unused.
    const { key, id } = await createKeyWithCli(databaseUrl, ['--owner', 'leases', '--limit', '300', '--burst', '6000']);
    const calls = await scriptCalls(redis);
    const rs = await load(gws, 400, 16, { 'x-api-key': key });
    const admitted = rs.filter((r) => r.status === 200).length;
    expect(rs.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
    const hash = `${prefix}rl:key:${id}`;
    const now = await counted(redis, hash);
    expect(now.total).toBeGreaterThanOrEqual(admitted);
    expect(now.total - admitted).toBeLessThanOrEqual(3 * 14);
    expect(now.current).toBeLessThanOrEqual(300);
    expect(admitted).toBeGreaterThanOrEqual(300 - 3 * 14);
    // Leases, not a call per request (the 400 requests include the refused ones, each asked for in a batch).
    expect((await scriptCalls(redis)) - calls).toBeLessThan(400);
    await waitFor(async () => (await counted(redis, hash)).total === admitted, 10_000, 'unused units to go back');
  });

  it('after a Redis restart, counts in the new Redis every request the fallback did not decide', async () => {
    const { key, id } = await createKeyWithCli(databaseUrl, ['--owner', 'restart', '--limit', '60000', '--burst', '6000']);
    const headers = { 'x-api-key': key };
    // Leases taken from the first Redis (the requests keep coming until the restart).
    const first = await load(gws, 100, 16, headers);
    expect(first.every((r) => r.status === 200)).toBe(true);
    const fallbackBefore = (
      await Promise.all(gws.map((g) => metricValue(g.adminPort, 'gateway_ratelimit_fallback_decisions_total')))
    ).reduce((a, b) => a + b, 0);

    await server.stop();
    server = await startRedis({ dataDir, port: redisPort });
    await waitFor(async () => (await redis.ping().catch(() => '')) === 'PONG', 10_000, 'the test client to reconnect');
    const after = await load(gws, 100, 16, headers);
    expect(after.every((r) => r.status === 200)).toBe(true);
    const fallback =
      (await Promise.all(gws.map((g) => metricValue(g.adminPort, 'gateway_ratelimit_fallback_decisions_total')))).reduce(
        (a, b) => a + b,
        0,
      ) - fallbackBefore;
    // No unit leased from the old Redis was used: once the unused units are back, the new Redis holds exactly the
    // requests it decided (a lease from before the restart would have let requests through that nobody counted).
    const hash = `${prefix}rl:key:${id}`;
    await waitFor(
      async () => (await counted(redis, hash)).total === after.length - fallback,
      10_000,
      `the new Redis to count ${after.length} − ${fallback} requests`,
    );
  });
});
