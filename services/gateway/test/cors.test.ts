import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request } from './support/http';
import { startStubNodes, type StubNode } from './support/stub-node';

/** An api replica that answers with CORS headers of its own (as a Stacks node does), counting what reaches it. */
async function startCorsUpstream(): Promise<{ url: string; calls: () => number; stop: () => Promise<void> }> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    if (req.url === '/readyz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ready"}');
      return;
    }
    calls += 1;
    res.writeHead(200, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': 'true',
    });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const WALLET = 'https://wallet.example';

describe('cross-origin requests from browsers', () => {
  let nodes: StubNode[];
  let upstream: Awaited<ReturnType<typeof startCorsUpstream>>;
  let open: GatewayProcess;
  let listed: GatewayProcess;

  beforeAll(async () => {
    nodes = await startStubNodes(1);
    upstream = await startCorsUpstream();
    const env = async () => ({
      DATABASE_URL: await createTestDatabase(testInfra().databaseUrl, 'gw_cors'),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '5',
      RATE_LIMIT_BURST_PER_SECOND: '100',
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: upstream.url,
    });
    [open, listed] = await Promise.all([
      startGatewayProcess(await env()),
      startGatewayProcess({ ...(await env()), CORS_ALLOWED_ORIGINS: `${WALLET}, https://explorer.example:8443` }),
    ]);
  });

  afterAll(async () => {
    await open?.stop();
    await listed?.stop();
    await upstream?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
  });

  const preflight = (port: number, origin: string) =>
    request(port, {
      method: 'OPTIONS',
      path: '/extended/v1/tx/mempool',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });

  it('answers a preflight itself, without an upstream and without counting it against the limit', async () => {
    const before = upstream.calls();
    // More preflights than the anonymous limit allows requests in a minute: none is refused.
    for (let i = 0; i < 8; i++) {
      const r = await preflight(open.port, 'https://anywhere.example');
      expect(r.status).toBe(204);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers['access-control-allow-headers']).toContain('x-api-key');
      expect(r.headers['access-control-allow-methods']).toContain('POST');
      expect(r.headers['access-control-max-age']).toBe('86400');
    }
    expect(upstream.calls()).toBe(before);
    const after = await request(open.port, { path: '/extended', headers: { origin: WALLET } });
    expect(after.status).toBe(200);
    expect(after.headers['ratelimit-remaining']).toBe('4');
  });

  it("lets any origin read answers and the gateway's headers by default, with the upstream's CORS headers replaced", async () => {
    const r = await request(open.port, { path: '/extended/v2/blocks', headers: { origin: 'https://anywhere.example' } });
    expect(r.status).toBe(200);
    const allowOrigin = r.rawHeaders.filter(
      (_, i) => i % 2 === 0 && r.rawHeaders[i]!.toLowerCase() === 'access-control-allow-origin',
    );
    expect(allowOrigin).toHaveLength(1);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    expect(r.headers['access-control-expose-headers']).toContain('x-request-id');
    expect(r.headers['access-control-expose-headers']).toContain('ratelimit-remaining');
  });

  it("carries the CORS headers on the gateway's own errors, so a page can read why it was refused", async () => {
    const r = await request(open.port, { path: '/extended', headers: { origin: WALLET, 'x-api-key': 'not-a-key' } });
    expect(r.status).toBe(401);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.json().error).toBe('unauthorized');
  });

  it('with a list of origins, answers a listed origin by name and gives any other none, whatever the upstream says', async () => {
    const mine = await request(listed.port, { path: '/extended', headers: { origin: WALLET } });
    expect(mine.headers['access-control-allow-origin']).toBe(WALLET);
    expect(mine.headers.vary).toMatch(/origin/i);
    const port = await request(listed.port, { path: '/extended', headers: { origin: 'https://explorer.example:8443' } });
    expect(port.headers['access-control-allow-origin']).toBe('https://explorer.example:8443');
    const other = await request(listed.port, { path: '/extended', headers: { origin: 'https://evil.example' } });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toMatch(/origin/i);
    const refused = await preflight(listed.port, 'https://evil.example');
    expect(refused.status).toBe(204);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers['access-control-allow-methods']).toBeUndefined();
  });
});
