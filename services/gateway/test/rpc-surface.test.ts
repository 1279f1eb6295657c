import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, expectMessage, testInfra } from '@bda/test-support';
import { DEFAULT_NODE_ROUTES } from '../src/env';
import { matchRoute, parseRouteList } from '../src/proxy/allowlist';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request, waitFor } from './support/http';
import { metricValue } from './support/metrics';
import { startStubNodes, StubApi, StubNode } from './support/stub-node';

const ADDR = 'SP000000000000000000002Q6VF78';
const PRINCIPAL = 'SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7';
const HASH64 = 'ab'.repeat(32);
const HASH40 = 'cd'.repeat(20);
const PUBKEY = `02${'ef'.repeat(32)}`;

interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/**
 * One concrete request for every read-only route of stacks-core's RPC documentation (docs/rpc/openapi.yaml, 3.x),
 * written out by hand from that document, plus the transaction broadcast.
 */
const SURFACE: Call[] = [
  { method: 'GET', path: '/v2/info' },
  { method: 'GET', path: '/v2/pox' },
  { method: 'GET', path: '/v2/neighbors' },
  { method: 'GET', path: '/v3/health' },
  { method: 'GET', path: '/v2/fees/transfer' },
  { method: 'POST', path: '/v2/fees/transaction', body: '{"transaction_payload":"021af9","estimated_len":350}' },
  { method: 'GET', path: `/v2/accounts/${PRINCIPAL}` },
  { method: 'GET', path: `/v2/accounts/${ADDR}.bns` },
  { method: 'GET', path: `/v2/contracts/interface/${ADDR}/bns` },
  { method: 'GET', path: `/v2/contracts/source/${ADDR}/bns` },
  {
    method: 'POST',
    path: `/v2/contracts/call-read/${ADDR}/bns/get-name-price`,
    body: JSON.stringify({ sender: PRINCIPAL, arguments: ['0x0200000002', '0x0200000003'] }),
  },
  { method: 'POST', path: `/v2/map_entry/${ADDR}/bns/namespaces`, body: '"0x0200000002"' },
  { method: 'GET', path: `/v2/data_var/${ADDR}/pox-4/first-burnchain-block-height` },
  { method: 'GET', path: `/v2/constant_val/${ADDR}/pox-4/ERR_STACKING_UNREACHABLE` },
  { method: 'GET', path: `/v2/traits/${PRINCIPAL}/my-token/${ADDR}/sip-010-trait-ft-standard/sip-010-trait` },
  { method: 'GET', path: `/v2/clarity/marf/${HASH64}` },
  { method: 'GET', path: `/v2/clarity/metadata/${ADDR}/pox-4/vm-metadata::9::contract-size` },
  { method: 'POST', path: '/v2/transactions', body: 'raw transaction bytes \u0000\u0001' },
  { method: 'GET', path: `/v2/transactions/unconfirmed/${HASH64}` },
  { method: 'GET', path: `/v3/transaction/${HASH64}` },
  { method: 'GET', path: `/v3/blocks/${HASH64}` },
  { method: 'GET', path: '/v3/blocks/height/123456' },
  { method: 'GET', path: '/v3/tenures/info' },
  { method: 'GET', path: `/v3/tenures/${HASH64}` },
  { method: 'GET', path: `/v3/tenures/blocks/${HASH40}` },
  { method: 'GET', path: `/v3/tenures/blocks/hash/${HASH64}` },
  { method: 'GET', path: '/v3/tenures/blocks/height/870000' },
  { method: 'GET', path: `/v3/tenures/fork_info/${HASH40}/${'01'.repeat(20)}` },
  { method: 'GET', path: `/v3/tenures/tip/${HASH40}` },
  { method: 'GET', path: '/v3/sortitions' },
  { method: 'GET', path: '/v3/sortitions/latest_and_last' },
  { method: 'GET', path: `/v3/sortitions/consensus/${HASH40}` },
  { method: 'GET', path: `/v3/sortitions/burn/${HASH64}` },
  { method: 'GET', path: '/v3/sortitions/burn_height/870000' },
  { method: 'GET', path: `/v2/blocks/${HASH64}` },
  { method: 'GET', path: '/v2/headers/10' },
  { method: 'GET', path: `/v2/microblocks/confirmed/${HASH64}` },
  { method: 'GET', path: `/v2/microblocks/unconfirmed/${HASH64}/3` },
  { method: 'GET', path: `/v2/microblocks/${HASH64}` },
  { method: 'GET', path: '/v3/stacker_set/90' },
  { method: 'GET', path: `/v3/signer/${PUBKEY}/90` },
  { method: 'GET', path: `/v2/stackerdb/${ADDR}/signers-0-0` },
  { method: 'GET', path: `/v2/stackerdb/${ADDR}/signers-0-0/replicas` },
  { method: 'GET', path: `/v2/stackerdb/${ADDR}/signers-0-0/4` },
  { method: 'GET', path: `/v2/stackerdb/${ADDR}/signers-0-0/4/17` },
  { method: 'GET', path: `/v2/attachments/inv?index_block_hash=${HASH64}&pages_indexes=1,2` },
  { method: 'GET', path: `/v2/attachments/${HASH40}` },
];

/** Routes that write, need the node's auth token, or use a method the documentation does not give the path. */
const REFUSED: [string, string][] = [
  ['POST', '/v2/microblocks'],
  ['POST', `/v2/blocks/upload/${HASH40}`],
  ['POST', '/v3/blocks/upload'],
  ['POST', '/v3/block_proposal'],
  ['POST', `/v2/stackerdb/${ADDR}/signers-0-0/chunks`],
  ['POST', `/v3/contracts/fast-call-read/${ADDR}/bns/get-name-price`],
  ['GET', `/v3/blocks/replay/${HASH64}`],
  ['POST', '/v2/mempool/query'],
  ['POST', '/v2/info'],
  ['GET', '/v2/transactions'],
  ['GET', `/v2/map_entry/${ADDR}/bns/namespaces`],
  ['GET', `/v2/contracts/call-read/${ADDR}/bns/get-name-price`],
  ['PUT', `/v2/accounts/${PRINCIPAL}`],
  ['DELETE', '/v3/tenures/info'],
  ['POST', '/v3/sortitions'],
  ['GET', '/V3/tenures/info'],
  ['GET', '/v3/tenures/info/extra/segments/here'],
  ['GET', '/v3'],
];

describe('node RPC surface', () => {
  let node: StubNode;
  let api: StubApi;
  let gw: GatewayProcess;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_rpc_surface');
    node = await new StubNode('node1').start();
    api = await new StubApi('api1').start();
    // NODE_RPC_ROUTES is not set: the default allowlist is under test.
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_ENABLED: 'false',
      NODE_RPC_URLS: node.url,
      API_URLS: api.url,
    });
  });

  afterAll(async () => {
    await gw?.stop();
    await node?.stop();
    await api?.stop();
  });

  it('exercises every default route with the table above', () => {
    const routes = parseRouteList(DEFAULT_NODE_ROUTES, 1);
    const hit = new Set(SURFACE.map((c) => matchRoute(routes, c.method, c.path.split('?')[0]!)?.pattern));
    expect(routes.filter((r) => !hit.has(r.pattern)).map((r) => `${r.method} ${r.pattern}`)).toEqual([]);
    expect(SURFACE.filter((c) => !matchRoute(routes, c.method, c.path.split('?')[0]!))).toEqual([]);
  });

  it('proxies every default route to the node with method, path, query and body intact', async () => {
    for (const [i, call] of SURFACE.entries()) {
      const url = `${call.path}${call.path.includes('?') ? '&' : '?'}tip=latest&proof=0&n=${i}`;
      const before = node.received.length;
      const headers: Record<string, string> = call.body === undefined ? {} : { 'content-type': 'application/json' };
      const r = await request(gw.port, { method: call.method, path: url, headers, body: call.body });
      expectMessage(`${call.method} ${url}: ${r.status} ${r.text}`, () => expect(r.headers['x-stub-node']).toBe('node1'));
      const got = node.received.slice(before).filter((d) => d.url === url);
      expect(got.map((d) => ({ method: d.method, url: d.url, body: d.body.toString('latin1') }))).toEqual([
        { method: call.method, url, body: call.body ?? '' },
      ]);
    }
    expect(api.received).toEqual([]);
  });

  it('refuses writes, auth-only routes and wrong methods with a JSON 404, reaching no upstream', async () => {
    const before = node.received.filter((d) => d.path !== '/v2/info').length;
    for (const [method, path] of REFUSED) {
      const r = await request(gw.port, { method, path, body: method === 'GET' ? undefined : 'x' });
      expectMessage(`${method} ${path}: ${r.status} ${r.text}`, () => expect(r.status).toBe(404));
      expect(r.json()).toEqual({ error: 'not_found', message: expect.stringContaining('is not a proxied node RPC route') });
    }
    expect(node.received.filter((d) => d.path !== '/v2/info').length).toBe(before);
    expect(api.received).toEqual([]);
  });

  it('keeps refusing path tricks under /v3 and the body limits of the reading POSTs', async () => {
    for (const path of ['/v3/tenures/../blocks/upload', '/v3/tenures/%2e%2e/blocks/upload', '/v3//tenures/info']) {
      const r = await request(gw.port, { method: 'POST', path, body: 'x' });
      expectMessage(path, () => expect(r.status).toBe(400));
    }
    const big = await request(gw.port, {
      method: 'POST',
      path: `/v2/map_entry/${ADDR}/bns/namespaces`,
      headers: { 'content-type': 'application/json' },
      body: `"0x${'00'.repeat(131_073)}"`,
    });
    expect(big.status).toBe(413);
    const bodyOnGet = await request(gw.port, { path: '/v3/tenures/info', body: 'x' });
    expect(bodyOnGet.status).toBe(413);
    expect(
      node.received.filter((d) => d.path.includes('blocks/upload') || (d.path.includes('map_entry') && d.body.length > 1000)),
    ).toEqual([]);
  });
});

describe('transaction broadcast', () => {
  let nodes: StubNode[];
  let api: StubApi;
  let gw: GatewayProcess;

  const available = (n: StubNode) => metricValue(gw.adminPort, 'gateway_upstream_available', { pool: 'node', member: n.url });
  const copies = (n: StubNode, tx: Buffer) => n.transactions().filter((b) => b.equals(tx)).length;
  const broadcast = (tx: Buffer) =>
    request(gw.port, {
      method: 'POST',
      path: '/v2/transactions',
      headers: { 'content-type': 'application/octet-stream' },
      body: tx,
    });
  const txid = (tx: Buffer) => createHash('sha256').update(tx).digest('hex');

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_rpc_broadcast');
    nodes = await startStubNodes(3);
    api = await new StubApi('api1').start();
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_ENABLED: 'false',
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      NODE_HEALTH_INTERVAL_MS: '100',
      NODE_UNHEALTHY_THRESHOLD: '1',
      NODE_HEALTHY_THRESHOLD: '1',
      UPSTREAM_EJECT_AFTER: '1000',
    });
  });

  afterEach(async () => {
    for (const n of nodes) {
      n.fault = { kind: 'none' };
      n.tip = 1000;
    }
    for (const n of nodes) await waitFor(async () => (await available(n)) === 1, 10_000, `${n.name} available`);
  });

  afterAll(async () => {
    await gw?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
  });

  it('sends a transaction to every healthy node exactly once and answers with a success', async () => {
    for (let i = 0; i < 3; i++) {
      const tx = randomBytes(180 + i);
      const r = await broadcast(tx);
      expect(r.status).toBe(200);
      expect(r.json()).toBe(txid(tx));
      await waitFor(() => nodes.every((n) => copies(n, tx) >= 1), 10_000, 'every node has the transaction');
      expect(nodes.map((n) => copies(n, tx))).toEqual([1, 1, 1]);
    }
  });

  it('answers with a success when the first node to answer fails, and tries no node twice', async () => {
    nodes[0]!.fault = { kind: 'rpc-error' };
    nodes[1]!.fault = { kind: 'slow', ms: 300 };
    const tx = randomBytes(200);
    const r = await broadcast(tx);
    expect(r.status).toBe(200);
    expect(r.json()).toBe(txid(tx));
    expect(r.headers['x-stub-node']).not.toBe('node1');
    await waitFor(() => nodes.every((n) => copies(n, tx) >= 1), 10_000, 'every node has the transaction');
    expect(nodes.map((n) => copies(n, tx))).toEqual([1, 1, 1]);
  });

  it('relays a node failure only when no node succeeds, each node having the bytes once', async () => {
    for (const n of nodes) n.fault = { kind: 'rpc-error' };
    const tx = randomBytes(190);
    const r = await broadcast(tx);
    expect(r.status).toBe(500);
    expect(nodes.map((n) => copies(n, tx))).toEqual([1, 1, 1]);
  });

  it('leaves out a node the health checks took out', async () => {
    nodes[2]!.tip = 10;
    await waitFor(async () => (await available(nodes[2]!)) === 0, 10_000, 'node3 taken out');
    const tx = randomBytes(170);
    const r = await broadcast(tx);
    expect(r.status).toBe(200);
    await waitFor(() => copies(nodes[0]!, tx) + copies(nodes[1]!, tx) >= 2, 10_000, 'both healthy nodes have it');
    expect(nodes.map((n) => copies(n, tx))).toEqual([1, 1, 0]);
  });
});
