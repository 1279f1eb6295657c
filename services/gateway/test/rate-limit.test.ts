import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, freePort, startRedis, type RunningRedis, testInfra } from '@bda/test-support';
import { createKeyWithCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request, waitFor, type Reply } from './support/http';
import { metricValue } from './support/metrics';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

const ROOT = join(import.meta.dirname, '../../..');

/** Sends `n` requests, alternating over the gateways, one after the other. */
async function burst(gws: GatewayProcess[], n: number, opts: (i: number) => Parameters<typeof request>[1]): Promise<Reply[]> {
  const out: Reply[] = [];
  for (let i = 0; i < n; i++) out.push(await request(gws[i % gws.length]!.port, opts(i)));
  return out;
}

const statuses = (rs: Reply[]) => rs.map((r) => r.status);
const count = (rs: Reply[], status: number) => rs.filter((r) => r.status === status).length;

describe('rate limits', () => {
  let databaseUrl: string;
  let nodes: StubNode[];
  let api: StubApi;
  let env: Record<string, string>;
  /** Two replicas sharing Redis, behind one trusted proxy (the test plays it through X-Forwarded-For). */
  let pair: GatewayProcess[];
  const extra: GatewayProcess[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_limits');
    nodes = await startStubNodes(3);
    api = await new StubApi('api1').start();
    env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: `test:limits:${randomBytes(4).toString('hex')}:`,
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10',
      RATE_LIMIT_KEY_PER_MINUTE: '20',
      RATE_LIMIT_BURST_PER_SECOND: '100',
      TRUSTED_PROXY_HOPS: '1',
    };
    pair = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
  });

  afterAll(async () => {
    await Promise.all([...(pair ?? []), ...extra].map((g) => g.stop()));
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
  });

  it('holds the anonymous limit per client address across both instances together', async () => {
    const rs = await burst(pair, 15, () => ({ path: '/v2/info', headers: { 'x-forwarded-for': '198.51.100.1' } }));
    expect(statuses(rs)).toEqual([...Array(10).fill(200), ...Array(5).fill(429)]);
    // Another client is not affected.
    expect((await request(pair[1]!.port, { path: '/v2/info', headers: { 'x-forwarded-for': '198.51.100.2' } })).status).toBe(200);
  });

  it('answers 429 with a JSON error, Retry-After and both header families', async () => {
    const rs = await burst(pair, 11, (i) => ({
      path: i % 2 ? '/extended/v1/block' : '/v2/pox',
      headers: { 'x-forwarded-for': '198.51.100.3' },
    }));
    const ok = rs[0]!;
    expect(ok.headers['ratelimit-policy']).toBe('"minute";q=10;w=60, "burst";q=100;w=1');
    expect(ok.headers.ratelimit).toMatch(/^"minute";r=9;t=\d+, "burst";r=99;t=1$/);
    expect(ok.headers['ratelimit-limit']).toBe('10');
    expect(ok.headers['ratelimit-remaining']).toBe('9');
    expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    expect(ok.headers['retry-after']).toBeUndefined();
    expect(rs[9]!.headers['ratelimit-remaining']).toBe('0');
    expect(rs[9]!.status).toBe(200);

    const limited = rs[10]!;
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    expect(limited.json()).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/rate limit exceeded \(per client address\); retry in \d+ s/),
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(limited.headers.ratelimit).toMatch(new RegExp(`^"minute";r=0;t=${retryAfter}, "burst";r=\\d+;t=1$`));
    expect(limited.headers['x-request-id']).toBeTruthy();
  });

  it('holds the keyed limit per key across both instances, whatever the client address', async () => {
    const { key } = await createKeyWithCli(databaseUrl, ['--owner', 'acct-limits']);
    const rs = await burst(pair, 25, (i) => ({
      path: '/v2/info',
      headers: { 'x-api-key': key, 'x-forwarded-for': `203.0.113.${i + 1}` },
    }));
    expect(statuses(rs)).toEqual([...Array(20).fill(200), ...Array(5).fill(429)]);
    expect(rs[0]!.headers['ratelimit-limit']).toBe('20');
    expect(rs[24]!.json().message).toContain('per key');
  });

  it('holds a custom per-key limit across both instances', async () => {
    const { key } = await createKeyWithCli(databaseUrl, ['--owner', 'contract-limits', '--limit', '30']);
    const rs = await burst(pair, 36, () => ({
      path: '/v2/pox',
      headers: { 'x-api-key': key, 'x-forwarded-for': '203.0.113.200' },
    }));
    expect(count(rs, 200)).toBe(30);
    expect(statuses(rs).slice(30)).toEqual(Array(6).fill(429));
    expect(rs[0]!.headers['ratelimit-limit']).toBe('30');
  });

  it('stops bursts with the short window', async () => {
    const { key } = await createKeyWithCli(databaseUrl, ['--owner', 'bursty', '--limit', '1000', '--burst', '5']);
    const rs = await Promise.all(
      Array.from({ length: 12 }, (_, i) => request(pair[i % 2]!.port, { path: '/v2/info', headers: { 'x-api-key': key } })),
    );
    expect(count(rs, 200)).toBeGreaterThanOrEqual(1);
    expect(count(rs, 200)).toBeLessThanOrEqual(5);
    const limited = rs.find((r) => r.status === 429)!;
    expect(limited.headers['ratelimit-limit']).toBe('5');
    // The burst window refused: a second or two.
    expect(['1', '2']).toContain(limited.headers['retry-after']);
  });

  it('does not let a spoofed X-Forwarded-For escape the limit', async () => {
    // Behind our proxy: the client writes whatever it likes first, the proxy appends the real address.
    const rs = await burst(pair, 15, (i) => ({
      path: '/v2/info',
      headers: { 'x-forwarded-for': `10.9.${i}.${i}, 192.0.2.${i}, 198.51.100.77` },
    }));
    expect(count(rs, 200)).toBe(10);
    // A gateway with no trusted proxy ignores the header altogether.
    const direct = await startGatewayProcess({
      ...env,
      TRUSTED_PROXY_HOPS: '0',
      REDIS_KEY_PREFIX: `test:direct:${randomBytes(4).toString('hex')}:`,
    });
    extra.push(direct);
    const spoofed = await burst([direct], 15, (i) => ({ path: '/v2/info', headers: { 'x-forwarded-for': `192.0.2.${i + 1}` } }));
    expect(count(spoofed, 200)).toBe(10);
  });

  it('groups IPv6 clients by their /56 prefix', async () => {
    const a = await burst(pair, 6, () => ({ path: '/v2/info', headers: { 'x-forwarded-for': '2001:db8:aa:bb00::1' } }));
    const b = await burst(pair, 6, () => ({ path: '/v2/info', headers: { 'x-forwarded-for': '2001:db8:aa:bbff:1234::2' } }));
    expect(count(a, 200) + count(b, 200)).toBe(10);
    const other = await request(pair[0]!.port, { path: '/v2/info', headers: { 'x-forwarded-for': '2001:db8:aa:cc00::1' } });
    expect(other.status).toBe(200);
  });

  it('answers a limited Rosetta request with 503, Retry-After and a retriable Rosetta error', async () => {
    const rs = await burst(pair, 11, () => ({
      method: 'POST',
      path: '/rosetta/v1/network/list',
      headers: { 'x-forwarded-for': '198.51.100.99', 'content-type': 'application/json' },
      body: '{"metadata":{}}',
    }));
    expect(statuses(rs.slice(0, 10))).toEqual(Array(10).fill(200));
    const limited = rs[10]!;
    expect(limited.status).toBe(503);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.json()).toMatchObject({
      code: 429,
      message: 'rate_limited',
      retriable: true,
      details: { error: 'rate_limited' },
    });
  });

  it('counts everything proxied but not the gateway’s own endpoints', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await request(pair[i % 2]!.port, {
        path: i % 2 ? '/healthz' : '/readyz',
        headers: { 'x-forwarded-for': '198.51.100.120' },
      });
      expect(r.status).toBe(200);
      expect(r.headers['ratelimit-limit']).toBeUndefined();
    }
    const notFound = await request(pair[0]!.port, { path: '/v2/microblocks', headers: { 'x-forwarded-for': '198.51.100.120' } });
    expect(notFound.status).toBe(404);
    expect(notFound.headers['ratelimit-remaining']).toBe('9');
  });

  it('keeps serving with a local limiter when Redis fails, and logs and counts the failure', async () => {
    const port = await freePort();
    const dataDir = join(ROOT, '.tmp', `redis-fail-${process.pid}`);
    let redis: RunningRedis = await startRedis({ dataDir, port });
    const gw = await startGatewayProcess({ ...env, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'test:fallback:' });
    extra.push(gw);
    try {
      expect((await request(gw.port, { path: '/v2/info', headers: { 'x-forwarded-for': '198.51.100.150' } })).status).toBe(200);
      await redis.stop();
      const rs = await burst([gw], 14, () => ({ path: '/v2/info', headers: { 'x-forwarded-for': '198.51.100.151' } }));
      // The local limiter applies the same policy in this process.
      expect(statuses(rs)).toEqual([...Array(10).fill(200), ...Array(4).fill(429)]);
      expect(gw.logs().some((l) => l.msg === 'rate limiting on redis failed: using the local limiter' && l.level === 50)).toBe(
        true,
      );
      expect(await metricValue(gw.adminPort, 'gateway_ratelimit_redis_errors_total')).toBeGreaterThanOrEqual(14);
      expect(await metricValue(gw.adminPort, 'gateway_ratelimit_fallback_decisions_total')).toBeGreaterThanOrEqual(14);

      redis = await startRedis({ dataDir, port });
      await waitFor(
        async () =>
          (await request(gw.port, { path: '/v2/info', headers: { 'x-forwarded-for': '198.51.100.152' } })).status === 200 &&
          gw.logs().some((l) => l.msg === 'rate limiting is back on redis'),
        15_000,
        'the gateway to use Redis again',
      );
    } finally {
      await gw.stop();
      await redis.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('shares in-memory counters between the workers of one gateway without Redis', async () => {
    const { REDIS_URL: _unused, ...noRedis } = env;
    const gw = await startGatewayProcess({ ...noRedis, GATEWAY_WORKERS: '2', TRUSTED_PROXY_HOPS: '0' });
    extra.push(gw);
    const rs = await burst([gw], 15, () => ({ path: '/v2/info' }));
    expect(statuses(rs)).toEqual([...Array(10).fill(200), ...Array(5).fill(429)]);
    // Both workers served (their access lines carry their pids).
    await waitFor(
      () =>
        new Set(
          gw
            .logs()
            .filter((l) => l.msg === 'request')
            .map((l) => l.pid),
        ).size === 2,
      10_000,
      'lines from both workers',
    );
    // /metrics on any worker's admin listener answers for the whole host.
    expect(await metricValue(gw.adminPort, 'gateway_ratelimit_decisions_total', { tier: 'anonymous' })).toBe(15);
  });
});
