import { createConnection, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra, expectMessage } from '@bda/test-support';
import { createKeyWithCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request, waitFor } from './support/http';
import { metricValue } from './support/metrics';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

/** Body timeout of the gateway under test: short, so that the stalled uploads below end quickly. */
const BODY_TIMEOUT_MS = 1_500;

/** Opens a raw connection and sends the head of a `POST /v2/transactions` announcing 1000 bytes, then `sent` bytes. */
function startUpload(port: number, sent: number): Promise<{ socket: Socket; answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let out = '';
    const answer = new Promise<string>((done) => {
      socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
      socket.once('close', () => done(out));
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(
        'POST /v2/transactions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n',
      );
      socket.write(Buffer.alloc(sent, 0x2a));
      resolve({ socket, answer });
    });
  });
}

/**
 * Issue 18, item 1: failures a client causes (it aborts, it stalls, it sends less than it announced) must never count
 * against a node. Two nodes, the default ejection settings (3 consecutive failures eject for 5 s).
 */
describe('client-caused failures', () => {
  let nodes: StubNode[];
  let api: StubApi;
  let gw: GatewayProcess;
  let key: string;

  const accessLines = (path: string) => gw.logs().filter((l) => l.msg === 'request' && l.path === path);
  const availableNodes = async () => {
    let n = 0;
    for (const s of nodes) n += await metricValue(gw.adminPort, 'gateway_upstream_available', { pool: 'node', member: s.url });
    return n;
  };
  const nodeTries = () => metricValue(gw.adminPort, 'gateway_upstream_tries_total', { pool: 'node' });
  const ejections = () => metricValue(gw.adminPort, 'gateway_upstream_ejections_total', { pool: 'node' });

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_client_failures');
    nodes = await startStubNodes(2);
    api = await new StubApi('api1').start();
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10000',
      RATE_LIMIT_BURST_PER_SECOND: '10000',
      GATEWAY_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      GATEWAY_HEADERS_TIMEOUT_MS: '1000',
      // Long, so that the health checks cannot put an ejected node back during the test.
      NODE_HEALTH_INTERVAL_MS: '2000',
    });
    key = (await createKeyWithCli(databaseUrl, ['--owner', 'client-failures'])).key;
  });

  afterAll(async () => {
    await gw?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
  });

  it('counts nothing against the nodes when 16 uploads send 10 of 1000 bytes and close', async () => {
    for (let i = 0; i < 16; i++) {
      const { socket, answer } = await startUpload(gw.port, 10);
      // Give the gateway the head and the 10 bytes before the client goes away.
      await new Promise((r) => setTimeout(r, 30));
      socket.destroy();
      await answer;
    }
    await waitFor(() => accessLines('/v2/transactions').length >= 16, 20_000, 'the 16 uploads to be logged');
    // No upstream was tried for any of them, no node was ejected, every node still takes traffic.
    expect(await nodeTries()).toBe(0);
    expect(await ejections()).toBe(0);
    expect(await availableNodes()).toBe(2);
    for (const n of nodes) expect(n.transactions()).toHaveLength(0);
    // A keyed request still gets through to a node.
    for (let i = 0; i < 4; i++) {
      const r = await request(gw.port, { path: '/v2/info', headers: { 'x-api-key': key } });
      expectMessage(r.text, () => expect(r.status).toBe(200));
      expect(r.headers['x-stub-node']).toBeDefined();
    }
  });

  it('answers 408 to an upload that stalls after 10 bytes, without trying a node', async () => {
    const triesBefore = await nodeTries();
    const { socket, answer } = await startUpload(gw.port, 10);
    const text = await answer;
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'request_timeout',
      message: `the request body did not arrive within ${BODY_TIMEOUT_MS} ms`,
    });
    expect(await nodeTries()).toBe(triesBefore);
    expect(await ejections()).toBe(0);
    expect(await availableNodes()).toBe(2);
  });

  it('closes a connection sending its body at 1 byte a second with a 408 once the body timeout has passed', async () => {
    const triesBefore = await nodeTries();
    const { socket, answer } = await startUpload(gw.port, 1);
    const drip = setInterval(() => socket.writable && socket.write('x'), 1_000);
    const text = await answer;
    clearInterval(drip);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"error":"request_timeout"');
    expect(await nodeTries()).toBe(triesBefore);
  });

  it('closes a connection sending its headers at 1 byte a second with a 408 (Node checks every 30 s)', async () => {
    const socket = createConnection({ host: '127.0.0.1', port: gw.port });
    let out = '';
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('error', () => undefined);
    const head = 'GET /v2/info HTTP/1.1\r\nHost: gw\r\nX-Slow: ' + 'a'.repeat(100);
    let i = 0;
    const drip = setInterval(() => socket.writable && socket.write(head[i++ % head.length]!), 1_000);
    await closed;
    clearInterval(drip);
    expect(out).toMatch(/^HTTP\/1\.1 408 /);
    expect(out).toContain('"error":"request_timeout"');
  }, 60_000);

  it('still ejects a node for failures it causes itself, but never the last one', async () => {
    // Both nodes answer 5xx on the RPC routes (their health checks pass): passive evidence alone.
    for (const n of nodes) n.fault = { kind: 'rpc-error' };
    for (let i = 0; i < 12; i++) await request(gw.port, { path: '/v2/pox' });
    expect(await ejections()).toBe(1);
    expect(await availableNodes()).toBe(1);
    for (const n of nodes) n.fault = { kind: 'none' };
    const r = await request(gw.port, { path: '/v2/pox' });
    expect(r.status).toBe(200);
  });
});
