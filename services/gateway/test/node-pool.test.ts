import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request, waitFor, type Reply } from './support/http';
import { metricValue } from './support/metrics';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

const ACCOUNT = 'SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7';

/** One of the idempotent node routes, in turn. */
function idempotent(i: number): Parameters<typeof request>[1] {
  switch (i % 5) {
    case 0:
      return { path: '/v2/info' };
    case 1:
      return { path: '/v2/pox' };
    case 2:
      return { path: `/v2/accounts/${ACCOUNT}?proof=0` };
    case 3:
      return {
        method: 'POST',
        path: '/v2/contracts/call-read/SP000000000000000000002Q6VF78/bns/get-name-price',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sender: ACCOUNT, arguments: ['0x0200000002', '0x0200000003'] }),
      };
    default:
      return {
        method: 'POST',
        path: '/v2/fees/transaction',
        headers: { 'content-type': 'application/json' },
        body: '{"transaction_payload":"0x00"}',
      };
  }
}

function tx(): Buffer {
  return randomBytes(180);
}

describe('node pool', () => {
  let nodes: StubNode[];
  let api: StubApi;
  let gw: GatewayProcess;

  const availableNodes = async () => {
    let n = 0;
    for (const s of nodes) n += await metricValue(gw.adminPort, 'gateway_upstream_available', { pool: 'node', member: s.url });
    return n;
  };

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_pool');
    nodes = await startStubNodes(3);
    api = await new StubApi('api1').start();
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_ENABLED: 'false',
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      NODE_HEALTH_INTERVAL_MS: '200',
      NODE_HEALTH_TIMEOUT_MS: '500',
      NODE_UNHEALTHY_THRESHOLD: '2',
      NODE_HEALTHY_THRESHOLD: '2',
      NODE_MAX_LAG_BLOCKS: '5',
      UPSTREAM_EJECT_AFTER: '2',
      UPSTREAM_EJECT_BASE_MS: '500',
      UPSTREAM_EJECT_MAX_MS: '2000',
      UPSTREAM_TRY_TIMEOUT_MS: '800',
      UPSTREAM_TOTAL_TIMEOUT_MS: '3000',
    });
  });

  afterEach(async () => {
    for (const n of nodes) {
      n.fault = { kind: 'none' };
      n.tip = 1000;
      await n.start().catch(() => undefined);
    }
    // Back to three nodes taking traffic before the next test.
    await waitFor(async () => (await availableNodes()) === 3, 20_000, 'every node to be back');
    for (const n of nodes) n.received.length = 0;
  });

  afterAll(async () => {
    await gw?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
  });

  it('balances requests over the healthy nodes', async () => {
    for (let i = 0; i < 30; i++) expect((await request(gw.port, { path: '/v2/pox' })).status).toBe(200);
    for (const n of nodes) expect(n.count('/v2/pox')).toBeGreaterThan(0);
  });

  it('loses no idempotent request when a node is killed under steady load', async () => {
    const results: Reply[] = [];
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; i < 60; i++) {
        results.push(await request(gw.port, idempotent(w * 60 + i)));
        if (!killed && results.length >= 60) {
          killed = true;
          await nodes[1]!.stop();
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    expect(killed).toBe(true);
    expect(results).toHaveLength(240);
    const failed = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`);
    expect(failed).toEqual([]);
    // The other nodes took the load.
    expect(nodes[0]!.rpcCount() + nodes[2]!.rpcCount()).toBeGreaterThan(150);
  });

  it('takes a lagging node out and puts it back once it caught up', async () => {
    nodes[2]!.tip = 990;
    await waitFor(
      async () => (await metricValue(gw.adminPort, 'gateway_upstream_available', { member: nodes[2]!.url })) === 0,
      10_000,
      'the lagging node to be out',
    );
    nodes[2]!.received.length = 0;
    for (let i = 0; i < 30; i++) expect((await request(gw.port, idempotent(i))).status).toBe(200);
    expect(nodes[2]!.rpcCount()).toBe(0);
    expect(
      await metricValue(gw.adminPort, 'gateway_health_checks_total', { member: nodes[2]!.url, outcome: 'lagging' }),
    ).toBeGreaterThan(0);

    nodes[2]!.tip = 1000;
    await waitFor(
      async () => (await metricValue(gw.adminPort, 'gateway_upstream_available', { member: nodes[2]!.url })) === 1,
      10_000,
      'the node to be back',
    );
    for (let i = 0; i < 30; i++) expect((await request(gw.port, idempotent(i))).status).toBe(200);
    expect(nodes[2]!.rpcCount()).toBeGreaterThan(0);
  });

  it('ejects a node answering 5xx and retries idempotent requests on another node', async () => {
    nodes[0]!.fault = { kind: 'rpc-error' };
    const rs: Reply[] = [];
    for (let i = 0; i < 40; i++) rs.push(await request(gw.port, idempotent(i)));
    expect(rs.filter((r) => r.status !== 200)).toEqual([]);
    expect(await metricValue(gw.adminPort, 'gateway_upstream_ejections_total', { member: nodes[0]!.url })).toBeGreaterThan(0);
    expect(await metricValue(gw.adminPort, 'gateway_upstream_retries_total', { pool: 'node' })).toBeGreaterThan(0);
  });

  describe('POST /v2/transactions', () => {
    // Broadcast to every healthy node (rpc-surface.test.ts): what must never happen is a node receiving it twice.
    const deliveries = (body: Buffer) => Math.max(...nodes.map((s) => s.transactions().filter((b) => b.equals(body)).length));
    const post = (body: Buffer) =>
      request(gw.port, {
        method: 'POST',
        path: '/v2/transactions',
        headers: { 'content-type': 'application/octet-stream' },
        body,
      });

    it('is sent again only when the connection failed before any byte was sent', async () => {
      await nodes[0]!.stop();
      await nodes[1]!.stop();
      const bodies = Array.from({ length: 20 }, tx);
      for (const b of bodies) {
        const r = await post(b);
        expect(r.status).toBe(200);
        expect(deliveries(b)).toBe(1);
      }
      expect(nodes[2]!.transactions()).toHaveLength(20);
    });

    it('is never delivered twice when a node answers 5xx', async () => {
      for (const n of nodes) n.fault = { kind: 'rpc-error' };
      const b = tx();
      const r = await post(b);
      expect(r.status).toBe(500);
      expect(r.text).toBe('internal error');
      expect(deliveries(b)).toBe(1);
    });

    it('is never delivered twice when a node times out', async () => {
      for (const n of nodes) n.fault = { kind: 'slow', ms: 1_500 };
      const b = tx();
      const r = await post(b);
      expect(r.status).toBe(504);
      expect(r.json()).toEqual({ error: 'gateway_timeout', message: 'the node did not answer in time' });
      await new Promise((res) => setTimeout(res, 1_000));
      expect(deliveries(b)).toBe(1);
    });

    it('is never delivered twice when a node gives a broken answer', async () => {
      for (const n of nodes) n.fault = { kind: 'garbage' };
      const b = tx();
      const r = await post(b);
      expect(r.status).toBe(502);
      expect(r.json().error).toBe('bad_gateway');
      expect(deliveries(b)).toBe(1);
    });

    it('streams a large body to the node unchanged', async () => {
      const b = randomBytes(1_500_000);
      const chunks = Array.from({ length: 15 }, (_, i) => b.subarray(i * 100_000, (i + 1) * 100_000));
      const r = await request(gw.port, {
        method: 'POST',
        path: '/v2/transactions',
        headers: { 'content-type': 'application/octet-stream' },
        body: chunks,
      });
      expect(r.status).toBe(200);
      expect(deliveries(b)).toBe(1);
    });
  });

  it('answers 503 with a JSON error when every node is down', async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    for (let i = 0; i < 5; i++) {
      const r = await request(gw.port, idempotent(i));
      expect(r.status).toBe(503);
      expect(r.json()).toMatchObject({ error: 'service_unavailable' });
    }
    await waitFor(async () => (await availableNodes()) === 0, 10_000, 'every node to be marked down');
    const r = await request(gw.port, { method: 'POST', path: '/v2/transactions', body: tx() });
    expect(r.status).toBe(503);
    expect(r.json()).toEqual({ error: 'service_unavailable', message: 'no healthy node is available' });
  });

  it('answers 504 when every node is too slow and 502 when every answer is broken', async () => {
    for (const n of nodes) n.fault = { kind: 'slow', ms: 1_500 };
    const slow = await request(gw.port, { path: '/v2/pox' });
    expect(slow.status).toBe(504);
    expect(slow.json().error).toBe('gateway_timeout');
    for (const n of nodes) n.fault = { kind: 'garbage' };
    const broken = await request(gw.port, { path: '/v2/pox' });
    expect(broken.status).toBe(502);
    expect(broken.json().error).toBe('bad_gateway');
  });

  it('exports per-node metrics', async () => {
    for (let i = 0; i < 10; i++) await request(gw.port, idempotent(i));
    for (const n of nodes) {
      expect(
        await metricValue(gw.adminPort, 'gateway_upstream_tries_total', { pool: 'node', member: n.url, outcome: 'ok' }),
      ).toBeGreaterThan(0);
      expect(await metricValue(gw.adminPort, 'gateway_node_tip_height', { member: n.url })).toBe(1000);
      expect(await metricValue(gw.adminPort, 'gateway_upstream_response_seconds_count', { member: n.url })).toBeGreaterThan(0);
    }
  });
});
