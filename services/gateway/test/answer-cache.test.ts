import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FenceWriter } from '@bda/answer-fence';
import {
  createTestDatabase,
  freePort,
  pipelinedRequests,
  startRedis,
  testInfra,
  type PipelinedAnswer,
  type RunningRedis,
} from '@bda/test-support';
import { createKeyWithCli, runKeysCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { waitFor } from './support/http';
import { metricValue } from './support/metrics';

const ROOT = join(import.meta.dirname, '../../..');

/** What the fake api saw of one request. */
interface Seen {
  method: string;
  url: string;
  want: string | undefined;
  epoch: string | undefined;
  ifNoneMatch: string | undefined;
}

/**
 * An api replica whose data has a version the test moves (the database at one data epoch): it answers, as the api does
 * when asked with `x-bda-want-data-epoch: 1`, with `x-bda-data-epoch: <version>` read before the route runs, and every
 * body names the version it was made from. `/extended/fail` is a 503, `/extended/no-epoch` never says its epoch,
 * `/extended/big` is 3,000 bytes, `/extended/cookie` sets a cookie, `/extended/private` is `Cache-Control: private`;
 * anything else is a small JSON answer with an ETag of its version (304 to a matching `If-None-Match`).
 */
/** The indexer's order: fence the next epoch, then commit it (the api answers from the new version from then on). */
async function commitNext(writer: FenceWriter, api: VersionedApi): Promise<number> {
  const epoch = api.version + 1;
  await writer.fence(epoch);
  api.version = epoch;
  return epoch;
}

class VersionedApi {
  version = 0;
  readonly received: Seen[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path === '/readyz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
      const h = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(',') : v;
      };
      this.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        want: h('x-bda-want-data-epoch'),
        epoch: h('x-bda-data-epoch'),
        ifNoneMatch: h('if-none-match'),
      });
      const v = this.version;
      const own: Record<string, string> = { 'x-request-id': String(req.headers['x-request-id']), etag: `W/"v${v}"` };
      if (req.headers['x-bda-want-data-epoch'] === '1' && path !== '/extended/no-epoch') own['x-bda-data-epoch'] = String(v);
      let status = 200;
      let body = JSON.stringify({ version: v, url: req.url });
      if (path === '/extended/fail') {
        status = 503;
        body = JSON.stringify({ error: 'unavailable', version: v });
      } else if (path === '/extended/big') body = JSON.stringify({ version: v, pad: 'x'.repeat(3_000) });
      else if (path === '/extended/cookie') own['set-cookie'] = 'session=1';
      else if (path === '/extended/private') own['cache-control'] = 'private, max-age=5';
      else if (req.headers['if-none-match'] === own.etag) return void res.writeHead(304, own).end();
      res.writeHead(status, { ...own, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      if (req.method === 'HEAD') res.end();
      else res.end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get count(): number {
    return this.received.length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * One keep-alive request alone on its connection (the gateway's fast path serves it), or with `Connection: close`
 * through node:http (`viaNode`); `extra` header lines end with CRLF.
 */
async function get(port: number, target: string, extra = '', method = 'GET', viaNode = false): Promise<PipelinedAnswer> {
  const close = viaNode ? 'Connection: close\r\n' : '';
  const [a] = await pipelinedRequests(port, [`${method} ${target} HTTP/1.1\r\nHost: gw\r\n${close}${extra}`]);
  return a!;
}

const version = (a: PipelinedAnswer): number => (JSON.parse(a.body) as { version: number }).version;

/** No header of the answer fence reaches a client. */
function expectNoFenceHeaders(a: PipelinedAnswer): void {
  expect(Object.keys(a.headers).filter((h) => h.startsWith('x-bda-'))).toEqual([]);
}

/**
 * Sends `target` until `times` requests in a row did not reach the api (a gateway's workers each keep their own copy,
 * and a holder takes a moment to get its first lease); every answer on the way must be of `expected`'s version.
 */
async function untilKept(api: VersionedApi, g: GatewayProcess, target: string, expected: number, times = 1): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (let inRow = 0; inRow < times;) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${target} to be served from memory`);
    const before = api.count;
    const a = await get(g.port, target);
    expect(a.status).toBe(200);
    expect(version(a)).toBe(expected);
    inRow = api.count === before ? inRow + 1 : 0;
  }
}

describe('gateway: api answers kept behind the answer fence (ADR 0048)', () => {
  const tag = randomBytes(4).toString('hex');
  const fencePrefix = `test:fence:${tag}:`;
  let api: VersionedApi;
  let writer: FenceWriter;
  let one: GatewayProcess;
  let pair: GatewayProcess[] = [];
  let off: GatewayProcess;
  const commit = () => commitNext(writer, api);

  beforeAll(async () => {
    const { databaseUrl, redisUrl } = testInfra();
    const database = await createTestDatabase(databaseUrl, 'gw_answer_cache');
    api = await new VersionedApi().start();
    writer = new FenceWriter({ url: redisUrl, prefix: fencePrefix, heartbeatMs: 10_000 });
    await writer.start();
    await commit();
    const env = {
      DATABASE_URL: database,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `test:gw-cache:${tag}:`,
      ANSWER_FENCE_PREFIX: fencePrefix,
      NODE_RPC_URLS: 'http://127.0.0.1:9',
      API_URLS: api.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST_PER_SECOND: '100000',
      GATEWAY_ANSWER_CACHE_ENTRY_MAX_BYTES: '2000',
      // A loaded test machine must neither lose a lease nor age an answer out between two requests of one assertion.
      GATEWAY_ANSWER_CACHE_LEASE_MS: '5000',
      GATEWAY_ANSWER_CACHE_MAX_AGE_MS: '600000',
    };
    [one, off, ...pair] = await Promise.all([
      startGatewayProcess(env),
      startGatewayProcess({ ...env, GATEWAY_ANSWER_CACHE_BYTES: '0' }),
      startGatewayProcess({ ...env, GATEWAY_WORKERS: '2' }),
      startGatewayProcess({ ...env, GATEWAY_WORKERS: '2' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([one?.stop(), off?.stop(), ...pair.map((g) => g.stop())]);
    await writer?.stop();
    await api?.stop();
  });

  it('serves repeats without the api, each client with its own request id, limits and access line', async () => {
    const n = await commit();
    const target = '/extended/v1/thing?t=1';
    const before = api.count;
    // The client's own fence headers never reach the api; the gateway asks for the epoch itself, from a key's second
    // miss on (a key read once per epoch is never kept: `AnswerCache.admits`).
    const fenceHeaders = 'x-bda-want-data-epoch: 0\r\nx-bda-data-epoch: 999\r\n';
    const first = await get(one.port, target, `X-Request-Id: first\r\n${fenceHeaders}`);
    const second = await get(one.port, target, fenceHeaders);
    for (const a of [first, second]) {
      expect(version(a)).toBe(n);
      expectNoFenceHeaders(a);
    }
    const seen = api.received.slice(before);
    expect(seen.map((s) => [s.url, s.want, s.epoch])).toEqual([
      [target, undefined, undefined],
      [target, '1', undefined],
    ]);
    await untilKept(api, one, target, n);

    const hitsBefore = await metricValue(one.adminPort, 'gateway_answer_cache_total', { result: 'hit' });
    const atApi = api.count;
    const answers: PipelinedAnswer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await get(one.port, target, `X-Request-Id: rep-${i}\r\n`, 'GET', i % 2 === 1));
    expect(api.count).toBe(atApi);
    for (const [i, a] of answers.entries()) {
      expect(a.status).toBe(200);
      expect(a.headers['x-request-id']).toBe(`rep-${i}`);
      expect(a.headers['ratelimit-policy']).toBe('"minute";q=1000000;w=60, "burst";q=100000;w=1');
      expect(a.headers['ratelimit-remaining']).toMatch(/^\d+$/);
      expect(a.headers.etag).toBe(`W/"v${n}"`);
      expect(a.headers['access-control-allow-origin']).toBe('*');
      expect(a.body).toBe(JSON.stringify({ version: n, url: target }));
      expectNoFenceHeaders(a);
    }
    expect(await metricValue(one.adminPort, 'gateway_answer_cache_total', { result: 'hit' })).toBeGreaterThanOrEqual(
      hitsBefore + 6,
    );
    expect(await metricValue(one.adminPort, 'gateway_answer_cache_bytes')).toBeGreaterThan(0);
    // What an operator watches: the epoch served, and 0 where nothing kept is served (the cache turned off).
    expect(await metricValue(one.adminPort, 'gateway_answer_fence_epoch')).toBe(n);
    expect(await metricValue(off.adminPort, 'gateway_answer_fence_epoch')).toBe(0);
    await waitFor(
      () => one.logs().filter((l) => l.msg === 'request' && String(l.reqId).startsWith('rep-')).length === 6,
      10_000,
      'an access line for each answer from memory',
    );
    // Each says it was a kept answer, with no upstream and no try.
    const lines = one.logs().filter((l) => l.msg === 'request' && String(l.reqId).startsWith('rep-'));
    expect(lines.map((l) => [l.kept, l.upstream, l.tries])).toEqual(Array(6).fill([true, undefined, undefined]));
  });

  it('never answers older than the last commit, over 50 commits on two gateways of two workers, and hits between them', async () => {
    const target = '/extended/v1/exact';
    for (let i = 0; i < 50; i++) {
      const n = await commit();
      for (const g of pair) {
        // Each worker keeps its own copy: until six requests in a row were served from memory, every answer is n too.
        await untilKept(api, g, target, n, 6);
        const atApi = api.count;
        for (let k = 0; k < 4; k++) expect(version(await get(g.port, target))).toBe(n);
        expect(api.count).toBe(atApi);
      }
    }
  });

  it('never answers older than the commit before the request, while commits and requests run at the same time', async () => {
    const target = '/extended/v1/race';
    let running = true;
    const stale: string[] = [];
    let answered = 0;
    const client = async (g: GatewayProcess) => {
      while (running) {
        const floor = api.version;
        const a = await get(g.port, target);
        answered++;
        if (a.status !== 200 || version(a) < floor) stale.push(`${a.status} ${a.body} after commit ${floor}`);
      }
    };
    const clients = [...pair, ...pair, one].map(client);
    for (let i = 0; i < 40; i++) {
      await commit();
      await new Promise((r) => setTimeout(r, 20));
    }
    running = false;
    await Promise.all(clients);
    expect(stale).toEqual([]);
    expect(answered).toBeGreaterThan(40);
  });

  it('forwards what is not the kept answer, and keeps nothing it may not keep', async () => {
    const n = await commit();
    const base = '/extended/v1/kinds';
    await untilKept(api, one, base, n);
    /**
     * Sends the request once (a key's first miss is never kept: `AnswerCache.admits`), then twice more; returns how
     * many of the two reached the api, and the last answer.
     */
    const twice = async (target: string, extra = '', method = 'GET') => {
      await get(one.port, target, extra, method);
      const before = api.count;
      await get(one.port, target, extra, method);
      const last = await get(one.port, target, extra, method);
      expectNoFenceHeaders(last);
      return { reached: api.count - before, last };
    };
    // Another target, another validator, HEAD: each its own answer, forwarded once, then kept under its own key.
    expect((await twice(`${base}?other=1`)).reached).toBe(1);
    const validated = await twice(base, `If-None-Match: W/"v${n}"\r\n`);
    expect(validated).toMatchObject({ reached: 1, last: { status: 304 } });
    expect((await twice(base, 'If-None-Match: W/"v0"\r\n')).reached).toBe(1);
    const head = await twice(base, '', 'HEAD');
    expect(head).toMatchObject({ reached: 1, last: { status: 200, body: '' } });
    expect(head.last.headers['content-length']).toBe(String(JSON.stringify({ version: n, url: base }).length));
    // A client that asks for a fresh answer gets one each time, although the same answer is kept.
    const bypassBefore = await metricValue(one.adminPort, 'gateway_answer_cache_total', { result: 'bypass' });
    expect((await twice(base, 'Cache-Control: no-cache\r\n')).reached).toBe(2);
    expect((await twice(base, 'Cache-Control: no-store\r\n')).reached).toBe(2);
    expect((await twice(base, 'Pragma: no-cache\r\n')).reached).toBe(2);
    expect(await metricValue(one.adminPort, 'gateway_answer_cache_total', { result: 'bypass' })).toBe(bypassBefore + 9);
    // Answers that are not kept: a 5xx, one without its epoch, one over the entry limit (still given whole), one
    // with a cookie, a private one.
    const failed = await twice('/extended/fail');
    expect(failed).toMatchObject({ reached: 2, last: { status: 503 } });
    expect((await twice('/extended/no-epoch')).reached).toBe(2);
    const big = await twice('/extended/big');
    expect(big.reached).toBe(2);
    expect(big.last.body).toBe(JSON.stringify({ version: n, pad: 'x'.repeat(3_000) }));
    expect((await twice('/extended/cookie')).reached).toBe(2);
    expect((await twice('/extended/private')).reached).toBe(2);
    // The kept answer is still served after all of them.
    const before = api.count;
    expect(version(await get(one.port, base))).toBe(n);
    expect(api.count).toBe(before);
  });

  it('forwards every request when GATEWAY_ANSWER_CACHE_BYTES=0, without asking for the epoch', async () => {
    const n = await commit();
    const before = api.count;
    for (let i = 0; i < 4; i++) {
      const a = await get(off.port, '/extended/v1/off', 'x-bda-want-data-epoch: 1\r\n');
      expect(version(a)).toBe(n);
      expectNoFenceHeaders(a);
    }
    expect(api.received.slice(before).map((s) => s.want)).toEqual([undefined, undefined, undefined, undefined]);
    expect(await metricValue(off.adminPort, 'gateway_answer_cache_total')).toBe(0);
  });
});

describe('gateway: answers kept while Redis goes away and comes back, keys and limits checked on every hit', () => {
  const dataDir = join(ROOT, '.tmp', `redis-answer-cache-${process.pid}`);
  const tag = randomBytes(4).toString('hex');
  const fencePrefix = `test:fence-restart:${tag}:`;
  let redisPort: number;
  let server: RunningRedis;
  let api: VersionedApi;
  let writer: FenceWriter;
  let gw: GatewayProcess;
  let databaseUrl: string;
  const commit = () => commitNext(writer, api);

  beforeAll(async () => {
    redisPort = await freePort();
    server = await startRedis({ dataDir, port: redisPort });
    databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_answer_cache_restart');
    api = await new VersionedApi().start();
    writer = new FenceWriter({ url: server.url, prefix: fencePrefix, heartbeatMs: 3_000 });
    await writer.start();
    await commit();
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      REDIS_URL: server.url,
      ANSWER_FENCE_PREFIX: fencePrefix,
      NODE_RPC_URLS: 'http://127.0.0.1:9',
      API_URLS: api.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST_PER_SECOND: '100000',
      GATEWAY_ANSWER_CACHE_LEASE_MS: '5000',
      GATEWAY_ANSWER_CACHE_MAX_AGE_MS: '600000',
    });
  });

  afterAll(async () => {
    await gw?.stop();
    await writer?.stop();
    await api?.stop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a revoked key and a client over its limit on what would be a hit', async () => {
    const n = await commit();
    const target = '/extended/v1/keyed';
    await untilKept(api, gw, target, n);
    const limited = await createKeyWithCli(databaseUrl, ['--owner', 'limited', '--limit', '60000', '--burst', '3']);
    const revoked = await createKeyWithCli(databaseUrl, ['--owner', 'revoked']);
    const before = api.count;
    const keyed = (key: string, id: string) =>
      `GET ${target} HTTP/1.1\r\nHost: gw\r\nX-Api-Key: ${key}\r\nX-Request-Id: ${id}\r\n`;
    // Ten at once against a burst of 3 a second: whichever second they fall in, at most six pass.
    const burst = await pipelinedRequests(
      gw.port,
      Array.from({ length: 10 }, (_, i) => keyed(limited.key, `lim-${i}`)),
    );
    const passed = burst.filter((a) => a.status === 200);
    expect(passed.length).toBeGreaterThanOrEqual(1);
    expect(passed.length).toBeLessThanOrEqual(6);
    expect(burst.filter((a) => a.status !== 200).every((a) => a.status === 429 && a.headers['retry-after'] !== undefined)).toBe(
      true,
    );
    for (const a of passed) expect(version(a)).toBe(n);
    expect((await get(gw.port, target, `X-Api-Key: ${revoked.key}\r\n`)).status).toBe(200);
    expect(api.count).toBe(before);
    const cli = await runKeysCli(databaseUrl, ['revoke', revoked.prefix]);
    expect(cli.code).toBe(0);
    await waitFor(
      async () => (await get(gw.port, target, `X-Api-Key: ${revoked.key}\r\n`)).status === 401,
      10_000,
      'the revocation to reach the gateway',
    );
    expect(api.count).toBe(before);
  });

  it('serves nothing from memory while Redis is away, and hits again once it is back and the writer beats', async () => {
    const n = await commit();
    const target = '/extended/v1/outage';
    await untilKept(api, gw, target, n, 3);
    await server.stop();
    // The holder hears its subscription close: from then on every request reaches the api.
    await waitFor(
      async () => {
        const before = api.count;
        await get(gw.port, target);
        return api.count > before;
      },
      10_000,
      'the gateway to stop serving from memory',
    );
    const before = api.count;
    for (let i = 0; i < 5; i++) expect(version(await get(gw.port, target))).toBe(n);
    expect(api.count - before).toBe(5);
    expect(await metricValue(gw.adminPort, 'gateway_answer_fence_epoch')).toBe(0);

    server = await startRedis({ dataDir, port: redisPort });
    await untilKept(api, gw, target, n, 3);
    // And the fence works again on the new Redis.
    const m = await commit();
    await untilKept(api, gw, target, m, 3);
  });
});
