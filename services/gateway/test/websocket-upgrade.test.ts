/**
 * WebSocket upgrades through the gateway (ADR 0025), against a real api process (its live endpoints) on a migrated
 * database: which paths upgrade, the key checked before the upgrade (header or query parameter), open connections
 * counted against the per-address and per-key policy, and each upgrade counted against the rate limit.
 */
import { request as httpRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StacksApiSocketClient, StacksApiWebSocketClient } from '@stacks/blockchain-api-client';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, freePort, testInfra } from '@bda/test-support';
import { startService, stopService, waitForHttp, type ServiceProcess } from '../../../scripts/lib/service-process';
import { createKeyWithCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';

type Upgrade =
  { upgraded: true; socket: Duplex } | { upgraded: false; status: number; body: string; headers: Record<string, unknown> };

/** A bare WebSocket handshake to the gateway: the upgraded socket, or the HTTP answer that refused it. */
function upgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<Upgrade> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('upgrade', (_res, socket) => resolve({ upgraded: true, socket }));
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ upgraded: false, status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function closeUpgraded(u: Upgrade): Promise<void> {
  if (!u.upgraded) return Promise.resolve();
  return new Promise((resolve) => {
    u.socket.once('close', () => resolve());
    u.socket.destroy();
  });
}

/**
 * Closes an upgraded connection with the WebSocket closing handshake (a masked close frame): the api answers and ends
 * the TCP connection, which the gateway sees (and counts) before it ends the client's, so this resolves after that.
 */
function closeGracefully(u: Upgrade): Promise<void> {
  if (!u.upgraded) return Promise.resolve();
  return new Promise((resolve) => {
    u.socket.once('close', () => resolve());
    u.socket.resume();
    u.socket.write(Buffer.from([0x88, 0x80, 0, 0, 0, 0]));
  });
}

let api: ServiceProcess;
let gateway: GatewayProcess;
let apiUrl: string;
let gatewayDb: string;
let keys: Record<'plain' | 'budget' | 'limited', string>;

beforeAll(async () => {
  const apiDb = await createTestDatabase(testInfra().databaseUrl, 'gw_ws_api');
  const db = createDb({ connectionString: apiDb, maxConnections: 1 });
  await migrateLatest(db);
  await db.destroy();
  const apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  api = startService(
    'api',
    { DATABASE_URL: apiDb, API_PORT: String(apiPort), API_HOST: '127.0.0.1', API_WORKERS: '1', LOG_LEVEL: 'warn' },
    () => undefined,
  );
  const apiReady = waitForHttp(`${apiUrl}/readyz`, 120_000);
  gatewayDb = await createTestDatabase(testInfra().databaseUrl, 'gw_ws');
  // The api first: a replica the gateway's first health round finds down stays out for a few rounds.
  await apiReady;
  gateway = await startGatewayProcess({
    DATABASE_URL: gatewayDb,
    API_URLS: apiUrl,
    NODE_RPC_URLS: 'http://127.0.0.1:9',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '50',
    RATE_LIMIT_BURST_PER_SECOND: '100',
    GATEWAY_WS_MAX_CONNECTIONS_PER_ADDRESS: '2',
    GATEWAY_WS_MAX_CONNECTIONS_PER_KEY: '3',
  });
  const [plain, budget, limited] = await Promise.all([
    createKeyWithCli(gatewayDb, ['--owner', 'ws-keys']),
    createKeyWithCli(gatewayDb, ['--owner', 'ws-budget']),
    createKeyWithCli(gatewayDb, ['--owner', 'ws-limit', '--limit', '4', '--burst', '100']),
  ]);
  keys = { plain: plain.key, budget: budget.key, limited: limited.key };
});

afterAll(async () => {
  await gateway?.stop();
  if (api) await stopService(api);
});

describe('WebSocket upgrades through the gateway', () => {
  it('upgrades /extended/v1/ws and /socket.io/ to the api (the official clients connect and subscribe), and answers any other upgrade 404 JSON without upgrading', async () => {
    const rpc = await StacksApiWebSocketClient.connect(`${gateway.url.replace('http', 'ws')}/extended/v1/ws`);
    const sub = await rpc.subscribeBlocks(() => undefined);
    await sub.unsubscribe();
    (rpc.webSocket as unknown as WebSocket).close();

    const sio = new StacksApiSocketClient({ url: gateway.url, subscriptions: ['block'], socketOpts: { reconnection: false } });
    await new Promise<void>((resolve, reject) => {
      sio.socket.once('connect', () => resolve());
      sio.socket.once('connect_error', reject);
    });
    sio.socket.close();

    for (const path of ['/extended/v1/tx/mempool', '/extended/v1/ws/../ws', '/socket.io', '/metrics', '/v2/info']) {
      const u = await upgrade(gateway.port, path);
      expect(u.upgraded).toBe(false);
      if (!u.upgraded) {
        expect([400, 404]).toContain(u.status);
        expect(JSON.parse(u.body)).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
    }
  });

  it('checks the key before the upgrade, from the header or the x-api-key query parameter: valid upgrades, unknown and malformed are 401 JSON', async () => {
    const key = keys.plain;
    const inHeader = await upgrade(gateway.port, '/extended/v1/ws', { 'x-api-key': key });
    const inQuery = await upgrade(gateway.port, `/extended/v1/ws?x-api-key=${key}`);
    expect(inHeader.upgraded).toBe(true);
    expect(inQuery.upgraded).toBe(true);
    await Promise.all([closeUpgraded(inHeader), closeUpgraded(inQuery)]);

    const unknown = `bda_${'A'.repeat(43)}`;
    for (const refused of [
      await upgrade(gateway.port, '/extended/v1/ws', { 'x-api-key': unknown }),
      await upgrade(gateway.port, `/socket.io/?EIO=4&transport=websocket&x-api-key=${unknown}`),
      await upgrade(gateway.port, '/extended/v1/ws?x-api-key=not-a-key'),
    ]) {
      expect(refused.upgraded).toBe(false);
      if (!refused.upgraded) {
        expect(refused.status).toBe(401);
        expect(JSON.parse(refused.body)).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
    }
  });

  it('counts open connections: a third from one address is refused 429 before the upgrade until one closes; a key has its own budget', async () => {
    const a = await upgrade(gateway.port, '/extended/v1/ws');
    const b = await upgrade(gateway.port, '/socket.io/?EIO=4&transport=websocket');
    expect([a.upgraded, b.upgraded]).toEqual([true, true]);
    const c = await upgrade(gateway.port, '/extended/v1/ws');
    expect(c.upgraded).toBe(false);
    if (!c.upgraded) {
      expect(c.status).toBe(429);
      expect(JSON.parse(c.body)).toMatchObject({ error: 'rate_limited' });
    }

    const key = keys.budget;
    const keyed = [];
    for (let i = 0; i < 3; i++) keyed.push(await upgrade(gateway.port, '/extended/v1/ws', { 'x-api-key': key }));
    expect(keyed.map((k) => k.upgraded)).toEqual([true, true, true]);
    const fourth = await upgrade(gateway.port, '/extended/v1/ws', { 'x-api-key': key });
    expect(fourth.upgraded ? 0 : fourth.status).toBe(429);

    await closeGracefully(a);
    const again = await upgrade(gateway.port, '/extended/v1/ws');
    expect(again.upgraded).toBe(true);
    await Promise.all([closeUpgraded(b), closeUpgraded(again), ...keyed.map(closeUpgraded)]);
  });

  it('counts each upgrade against the key’s rate limit: past a custom limit of 4 a minute, the upgrade is 429 with Retry-After', async () => {
    const key = keys.limited;
    for (let i = 0; i < 4; i++) {
      const u = await upgrade(gateway.port, '/extended/v1/ws', { 'x-api-key': key });
      expect(u.upgraded).toBe(true);
      await closeUpgraded(u);
    }
    const limited = await upgrade(gateway.port, '/extended/v1/ws', { 'x-api-key': key });
    expect(limited.upgraded).toBe(false);
    if (!limited.upgraded) {
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
  });
});
