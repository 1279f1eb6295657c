import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, pipelinedRequests, testInfra } from '@bda/test-support';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { metricValue } from './support/metrics';

/**
 * An api replica for these tests: counts what reaches it and answers as the api does (its own `x-request-id`):
 * `/extended/count` a small JSON answer, `/extended/big` 200 KB, `/extended/cut` a body cut after 10 of 1,000 bytes.
 */
class CountingApi {
  readonly received: Array<{ method: string; url: string; ifNoneMatch: string | undefined }> = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path === '/readyz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
      this.received.push({ method: req.method ?? '', url: req.url ?? '', ifNoneMatch: req.headers['if-none-match'] });
      const own = { 'x-request-id': String(req.headers['x-request-id']), etag: 'W/"tip-1"' };
      if (path === '/extended/cut') {
        res.writeHead(200, { ...own, 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"partial":');
        setTimeout(() => res.destroy(), 20);
        return;
      }
      if (req.headers['if-none-match'] === 'W/"tip-1"') return void res.writeHead(304, own).end();
      const body =
        path === '/extended/big'
          ? JSON.stringify({ pad: 'x'.repeat(200_000) })
          : JSON.stringify({ answer: this.received.length, url: req.url });
      res.writeHead(200, { ...own, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      if (req.method === 'HEAD') res.end();
      else res.end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  count(path: string): number {
    return this.received.filter((r) => r.url.split('?')[0] === path).length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const get = (target: string, id: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: gw\r\nX-Request-Id: ${id}\r\n${extra}`;

describe('gateway: identical api reads of one turn share one upstream request', () => {
  let api: CountingApi;
  let shared: GatewayProcess;
  let unshared: GatewayProcess;
  let limited: GatewayProcess;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_same_turn');
    api = await new CountingApi().start();
    const common = {
      DATABASE_URL: databaseUrl,
      NODE_RPC_URLS: 'http://127.0.0.1:9',
      API_URLS: api.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_BURST_PER_SECOND: '100000',
      GATEWAY_SHARE_MAX_BYTES: '100000',
    };
    [shared, unshared, limited] = await Promise.all([
      startGatewayProcess(common),
      startGatewayProcess({ ...common, GATEWAY_SHARE_ANSWERS: 'false' }),
      startGatewayProcess({ ...common, RATE_LIMIT_BURST_PER_SECOND: '2' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([shared?.stop(), unshared?.stop(), limited?.stop()]);
    await api?.stop();
  });

  it('forwards identical pipelined reads once and answers each client with its own request id', async () => {
    const before = api.count('/extended/count');
    const answers = await pipelinedRequests(shared.port, [
      get('/extended/count?x=1', 'r-1'),
      get('/extended/count?x=1', 'r-2'),
      get('/extended/count?x=1', 'r-3'),
    ]);
    expect(api.count('/extended/count') - before).toBe(1);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ url: '/extended/count?x=1' });
    // Each client's own id, never the id of the request that went upstream.
    expect(answers.map((a) => a.headers['x-request-id'])).toEqual(['r-1', 'r-2', 'r-3']);
    expect(answers.map((a) => a.headers.etag)).toEqual(Array(3).fill('W/"tip-1"'));
    expect(await metricValue(shared.adminPort, 'gateway_shared_answers_total')).toBeGreaterThanOrEqual(2);
    // Every client has its own access line.
    const lines = shared.logs().filter((l) => l.msg === 'request' && String(l.path) === '/extended/count');
    expect(lines.map((l) => l.reqId)).toEqual(expect.arrayContaining(['r-1', 'r-2', 'r-3']));
  });

  it('forwards each request whose target or validator differs, and a later turn on its own', async () => {
    const before = api.received.length;
    const answers = await pipelinedRequests(shared.port, [
      get('/extended/count?x=2', 'a'),
      get('/extended/count?x=3', 'b'),
      get('/extended/count?x=2', 'c', 'If-None-Match: W/"tip-1"\r\n'),
      get('/extended/count?x=2', 'd', 'Cache-Control: no-cache\r\n'),
      `HEAD /extended/count?x=2 HTTP/1.1\r\nHost: gw\r\nX-Request-Id: e\r\n`,
      get('/extended/count?x=2', 'f'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 304, 200, 200, 200]);
    expect(answers[5]!.body).toBe(answers[0]!.body);
    const sent = api.received.slice(before);
    expect(sent.map((r) => `${r.method} ${r.url} ${r.ifNoneMatch ?? '-'}`).sort()).toEqual(
      [
        'GET /extended/count?x=2 -',
        'GET /extended/count?x=3 -',
        'GET /extended/count?x=2 W/"tip-1"',
        'GET /extended/count?x=2 -',
        'HEAD /extended/count?x=2 -',
      ].sort(),
    );
    await pipelinedRequests(shared.port, [get('/extended/count?x=2', 'g')]);
    expect(api.received.length - before).toBe(6);
  });

  it('forwards each request on its own when the answer is larger than GATEWAY_SHARE_MAX_BYTES', async () => {
    const before = api.count('/extended/big');
    const answers = await pipelinedRequests(shared.port, [get('/extended/big', 'big-1'), get('/extended/big', 'big-2')]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    for (const a of answers) expect(JSON.parse(a.body).pad).toHaveLength(200_000);
    // The shared try was given up when the body passed the bound, then each request went on its own.
    expect(api.count('/extended/big') - before).toBe(3);
  });

  it('answers 502 to every client of a shared answer whose body was cut', async () => {
    const answers = await pipelinedRequests(shared.port, [get('/extended/cut', 'cut-1'), get('/extended/cut', 'cut-2')]);
    expect(answers.map((a) => a.status)).toEqual([502, 502]);
    expect(answers.map((a) => a.headers['x-request-id'])).toEqual(['cut-1', 'cut-2']);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ error: expect.any(String), message: expect.stringContaining('cut') });
  });

  it('forwards every request when GATEWAY_SHARE_ANSWERS=false', async () => {
    const before = api.count('/extended/count');
    await pipelinedRequests(unshared.port, [get('/extended/count?x=9', 'u-1'), get('/extended/count?x=9', 'u-2')]);
    expect(api.count('/extended/count') - before).toBe(2);
  });

  it('still counts every shared request against its client’s limit', async () => {
    const before = api.count('/extended/count');
    const answers = await pipelinedRequests(limited.port, [
      get('/extended/count?x=7', 'l-1'),
      get('/extended/count?x=7', 'l-2'),
      get('/extended/count?x=7', 'l-3'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(api.count('/extended/count') - before).toBe(1);
  });
});
