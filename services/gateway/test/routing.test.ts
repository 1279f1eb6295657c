import { createConnection } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra, expectMessage } from '@bda/test-support';
import { DEFAULT_NODE_ROUTES } from '../src/env';
import { DRAIN_LIMIT_BYTES } from '@bda/common';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request } from './support/http';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

/** Sends raw bytes and returns the raw answer (for request targets an HTTP client would not send). */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ host: '127.0.0.1', port });
    let out = '';
    s.on('data', (d) => (out += d.toString()));
    s.once('end', () => resolve(out));
    s.once('error', reject);
    s.write(text);
  });
}

describe('routing', () => {
  let nodes: StubNode[];
  let apis: StubApi[];
  let gw: GatewayProcess;
  const upstreamCalls = () => nodes.reduce((n, s) => n + s.rpcCount(), 0) + apis.reduce((n, a) => n + a.received.length, 0);

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_routing');
    nodes = await startStubNodes(3);
    apis = await Promise.all([new StubApi('api1').start(), new StubApi('api2').start()]);
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_BURST_PER_SECOND: '100000',
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: apis.map((a) => a.url).join(','),
      NODE_RPC_ROUTES: `${DEFAULT_NODE_ROUTES}, GET /v2/big`,
    });
  });

  afterAll(async () => {
    await gw?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await Promise.all((apis ?? []).map((a) => a.stop()));
  });

  it('sends /v2/prices to the api and the allowlisted /v2 routes to the node pool', async () => {
    const price = await request(gw.port, { path: '/v2/prices/names/muneeb.id' });
    expect(price.status).toBe(200);
    expect(price.headers['x-stub-api']).toBeDefined();
    expect(price.json().url).toBe('/v2/prices/names/muneeb.id');
    const info = await request(gw.port, { path: '/v2/info' });
    expect(info.headers['x-stub-node']).toBeDefined();
    const account = await request(gw.port, { path: '/v2/accounts/SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7?proof=0&tip=latest' });
    expect(account.json().nonce).toBe(7);
  });

  it('balances everything else over the api replicas, bodies and query strings intact', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await request(gw.port, { path: `/extended/v1/tx/0x${i}?limit=5&offset=${i}` });
      expect(r.status).toBe(200);
      expect(r.json().url).toBe(`/extended/v1/tx/0x${i}?limit=5&offset=${i}`);
    }
    for (const a of apis) expect(a.received.length).toBeGreaterThan(0);
    const body = JSON.stringify({ network_identifier: { blockchain: 'stacks', network: 'mainnet' } });
    const r = await request(gw.port, {
      method: 'POST',
      path: '/rosetta/v1/network/status',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(r.json()).toMatchObject({ method: 'POST', bodyBytes: body.length });
  });

  it('keeps repeated upstream headers and sets the forwarding headers', async () => {
    const r = await request(gw.port, { path: '/runes/v1/etchings', headers: { 'x-forwarded-for': '6.6.6.6' } });
    expect(r.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    const seen = apis.flatMap((a) => a.received).find((d) => d.path === '/runes/v1/etchings')!;
    // No proxy is trusted: the client-written entry is neither taken as the client nor passed on.
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-real-ip']).toBe('127.0.0.1');
    expect(seen.headers.host).toBe(new URL(apis.find((a) => a.received.includes(seen))!.url).host);
  });

  it('passes request ids through and makes one when missing', async () => {
    const given = await request(gw.port, { path: '/v2/pox', headers: { 'x-request-id': 'req-abc.123' } });
    expect(given.headers['x-request-id']).toBe('req-abc.123');
    expect(
      nodes
        .flatMap((n) => n.received)
        .filter((d) => d.path === '/v2/pox')
        .at(-1)!.headers['x-request-id'],
    ).toBe('req-abc.123');
    const made = await request(gw.port, { path: '/v2/pox', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 404 with a JSON error for /v2 routes outside the allowlist', async () => {
    const before = upstreamCalls();
    for (const [method, path] of [
      ['POST', '/v2/microblocks'],
      ['POST', '/v2/info'],
      ['GET', '/v2/transactions'],
      ['GET', '/V2/info'],
      ['GET', '/v2/accounts'],
      ['GET', '/v2/accounts/SP1/extra'],
      ['DELETE', '/v2/transactions'],
      ['GET', '/v2'],
    ] as const) {
      const r = await request(gw.port, { method, path });
      expectMessage(`${method} ${path}`, () => expect(r.status).toBe(404));
      expect(r.json()).toEqual({ error: 'not_found', message: expect.stringContaining('is not a proxied node RPC route') });
    }
    expect(upstreamCalls()).toBe(before);
  });

  it('refuses path tricks without reaching any upstream', async () => {
    const before = upstreamCalls();
    const node = nodes[0]!;
    const targets = [
      '/v2/info/../neighbors',
      '/v2/info/%2e%2e/neighbors',
      '/v2/accounts/..%2fneighbors',
      '/v2/accounts/SP1%2F..%2F..%2Fneighbors',
      '/v2/accounts/%252e%252e%252fneighbors',
      '/v2/./neighbors',
      '//v2/neighbors',
      '/v2/accounts/SP1\\..\\..\\neighbors',
      '/extended/../v2/neighbors',
    ];
    for (const path of targets) {
      const r = await request(gw.port, { path });
      expectMessage(path, () => expect(r.status).toBe(400));
      expect(r.json().error).toBe('invalid_request');
    }
    // Absolute-form targets, with or without a Host header pointing elsewhere.
    for (const target of [`http://127.0.0.1:${node.port}/v2/neighbors`, 'http://evil.example/v2/info']) {
      const answer = await raw(gw.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${node.port}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1.1 400/);
      expect(answer).toContain('"error":"invalid_request"');
    }
    // A Host header naming a node changes nothing: the path decides.
    const hosted = await request(gw.port, { path: '/v2/microblocks', headers: { host: `127.0.0.1:${node.port}` } });
    expect(hosted.status).toBe(404);
    expect(upstreamCalls()).toBe(before);
  });

  it('answers in JSON what the HTTP parser refuses, without reaching any upstream', async () => {
    const before = upstreamCalls();
    const long = await raw(gw.port, `GET /extended/v1/tx/0x${'ab'.repeat(10_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect(long).toMatch(/^HTTP\/1.1 431 /);
    expect(long).toContain('"error":"request_too_large"');
    const garbage = await raw(gw.port, 'GET /v2/info HTTP/1.1\r\nBad Header Line\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1.1 400 /);
    expect(garbage).toContain('"error":"malformed_request"');
    expect(upstreamCalls()).toBe(before);
  });

  it('refuses oversized bodies with 413 before they reach anybody', async () => {
    const before = upstreamCalls();
    const cases: Array<[string, string, Buffer | Buffer[]]> = [
      ['POST', '/v2/transactions', randomBytes(2_097_153)],
      ['POST', '/v2/fees/transaction', randomBytes(262_145)],
      ['POST', '/v2/contracts/call-read/SP1/c/f', Array.from({ length: 3 }, () => randomBytes(100_000))],
      ['GET', '/v2/info', Buffer.from('x')],
      ['POST', '/rosetta/v1/construction/submit', randomBytes(1_048_577)],
    ];
    for (const [method, path, body] of cases) {
      const r = await request(gw.port, { method, path, body, headers: { 'content-type': 'application/octet-stream' } });
      expectMessage(`${method} ${path} ${r.text}`, () => expect(r.status).toBe(413));
      if (path.startsWith('/rosetta/')) {
        // Rosetta paths carry the Rosetta Error object.
        expect(r.json()).toMatchObject({ code: 413, message: 'payload_too_large', retriable: false });
      } else {
        expect(r.json().error).toBe('payload_too_large');
      }
    }
    expect(upstreamCalls()).toBe(before);
    // A chunked body that grows past the limit while it streams is cut off too.
    const chunks = Array.from({ length: 25 }, () => randomBytes(100_000));
    const r = await request(gw.port, { method: 'POST', path: '/v2/transactions', body: chunks }).catch((e: Error) => e);
    if (!(r instanceof Error)) {
      expect(r.status).toBe(413);
    }
    expect(nodes.flatMap((n) => n.transactions()).length).toBe(0);
  });

  it('lets a client still sending an oversized body read its 413, instead of a broken pipe', async () => {
    // Answered and closed while the body was still coming, about one try in ten failed with EPIPE here.
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 150; i++) {
      const r = await request(gw.port, {
        method: 'POST',
        path: '/v2/transactions',
        body: randomBytes(2_097_153),
        headers: { 'content-type': 'application/octet-stream' },
      }).catch((e: Error) => e);
      const key = r instanceof Error ? r.message : String(r.status);
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(outcomes)).toEqual({ 413: 150 });
  });

  it('answers a body declared beyond what it drains at once, and closes the connection', async () => {
    const answer = await raw(
      gw.port,
      `POST /v2/transactions HTTP/1.1\r\nhost: x\r\ncontent-type: application/octet-stream\r\ncontent-length: ${DRAIN_LIMIT_BYTES + 1}\r\n\r\nabc`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('payload_too_large');
  });

  it('streams large answers to the client', async () => {
    const r = await request(gw.port, { path: '/v2/big' });
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(64 * 64 * 1024);
    expect(r.body[64 * 1024 * 10]).toBe(10);
  });

  it('serves /healthz and /readyz itself without proxying or counting them, and its metrics on the admin port only', async () => {
    const before = upstreamCalls();
    const health = await request(gw.port, { path: '/healthz' });
    expect(health.json()).toEqual({ status: 'ok' });
    expect(health.headers['ratelimit-limit']).toBeUndefined();
    expect((await request(gw.port, { path: '/readyz' })).json()).toEqual({ status: 'ready' });
    const publicMetrics = await request(gw.port, { path: '/metrics' });
    expect(publicMetrics.status).toBe(404);
    expect(publicMetrics.text).not.toContain('gateway_requests_total');
    const m = await request(gw.adminPort, { path: '/metrics' });
    expect(m.text).toContain('gateway_requests_total');
    expect(upstreamCalls()).toBe(before);
  });
});
