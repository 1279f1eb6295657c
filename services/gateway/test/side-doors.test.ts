import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra, expectMessage } from '@bda/test-support';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request } from './support/http';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

/**
 * Issue 18, items 5 and 7: the api's internal endpoints never answer through the gateway, the gateway's own metrics are
 * on its admin listener only, and the forwarding headers an upstream sees are the gateway's, never the client's.
 */
describe('side doors', () => {
  let nodes: StubNode[];
  let api: StubApi;
  let gw: GatewayProcess;
  const upstreamCalls = () => nodes.reduce((n, s) => n + s.rpcCount(), 0) + api.received.length;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_side_doors');
    nodes = await startStubNodes(1);
    api = await new StubApi('api1').start();
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_BURST_PER_SECOND: '100000',
    });
  });

  afterAll(async () => {
    await gw?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
  });

  it("never forwards the api's internal paths, in any spelling", async () => {
    const before = upstreamCalls();
    const paths = [
      '/metrics',
      '/metrics/',
      '/METRICS',
      '/Metrics/',
      '/%6detrics',
      '/%6D%45trics',
      '/metrics?format=text',
      '/metrics/extra',
      '/healthz/',
      '/HEALTHZ',
      '/%68ealthz',
      '/readyz/',
      '/ReadyZ',
      '/%72eadyz?x=1',
    ];
    for (const path of paths) {
      const r = await request(gw.port, { path });
      expectMessage(path, () => expect(r.status).toBe(404));
      expectMessage(path, () => expect(r.headers['content-type']).toMatch(/application\/json/));
      expectMessage(path, () => expect(r.json()).toMatchObject({ error: 'not_found' }));
      expectMessage(path, () => expect(r.text).not.toContain('gateway_'));
    }
    expect(upstreamCalls()).toBe(before);
  });

  it('serves its own /healthz and /readyz on the public port, and its metrics only on the admin listener', async () => {
    expect((await request(gw.port, { path: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await request(gw.port, { path: '/readyz' })).json()).toEqual({ status: 'ready' });
    const metrics = await request(gw.adminPort, { path: '/metrics' });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('gateway_requests_total');
    // The admin listener proxies nothing.
    const before = upstreamCalls();
    const proxied = await request(gw.adminPort, { path: '/v2/info' });
    expect(proxied.status).toBe(404);
    expect(upstreamCalls()).toBe(before);
    const listening = gw.logs().find((l) => l.msg === 'gateway admin listening');
    expect(listening).toMatchObject({ host: '127.0.0.1', port: gw.adminPort });
  });

  it('sets the forwarding headers from what it knows and strips the key from the query string', async () => {
    const r = await request(gw.port, {
      path: '/extended/v1/tx/0x01?limit=5&x-api-key=bda_secret&X-API-KEY=bda_other&x%2Dapi%2Dkey=bda_third&offset=2',
      headers: {
        host: 'evil.example',
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
        'x-real-ip': '6.6.6.6',
        forwarded: 'for=6.6.6.6;host=evil.example;proto=https',
      },
    });
    expect(r.status).toBe(200);
    const seen = api.received.at(-1)!;
    expect(r.json().url).toBe('/extended/v1/tx/0x01?limit=5&offset=2');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-real-ip']).toBe('127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('http');
    expect(seen.headers['x-forwarded-host']).toBeUndefined();
    expect(seen.headers.forwarded).toBeUndefined();
    expect(seen.headers.host).toBe(new URL(api.url).host);
    expect(seen.headers['x-api-key']).toBeUndefined();

    const node = await request(gw.port, {
      path: '/v2/accounts/SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7?x-api-key=bda_secret&proof=0',
      headers: { 'x-forwarded-for': '6.6.6.6', host: 'evil.example' },
    });
    expect(node.status).toBe(200);
    const atNode = nodes[0]!.received.at(-1)!;
    expect(atNode.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(atNode.headers['x-forwarded-host']).toBeUndefined();
    expect(atNode.headers.host).toBe(new URL(nodes[0]!.url).host);
  });
});
