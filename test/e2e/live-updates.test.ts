/**
 * Live updates end to end (issue 25, ADR 0025): fuzzed-transactions-1.tsv posted to the observer, through Kafka and the
 * indexer (which announces its commits), to two api replicas behind the gateway. The official clients, unmodified
 * (`StacksApiSocketClient` with the key in its header, `StacksApiWebSocketClient` with the key in the query string, as a
 * browser must), two of each so that each replica has both kinds (the gateway's pool alternates), subscribe before the
 * replay and must each receive every block once in height order, every transaction as it enters the mempool, every
 * update of one principal's transactions and of one transaction until it is mined. Then the key is refused, and revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { StacksApiSocketClient, StacksApiWebSocketClient } from '@stacks/blockchain-api-client';
import { freePort, Inbox, testInfra } from '@bda/test-support';
import { ROOT, startService, stopService, waitForHttp, type ServiceProcess } from '../../scripts/lib/service-process';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { TestSystem } from '../support/test-system';

const FIXTURE = 'fuzzed-transactions-1.tsv';

interface Topics {
  blocks: Inbox<{ height: number; hash: string }>;
  mempool: Inbox<{ tx_id: string; tx_status: string }>;
  address: Inbox<{ tx: { tx_id: string } }>;
  tx: Inbox<{ tx_id: string; tx_status: string }>;
}

/** The gateway's key CLI, as `npm run keys -- …` runs it; its output. */
function keysCli(databaseUrl: string, args: string[]): Promise<string> {
  const cli = join(ROOT, 'services/gateway/src/cli/keys.ts');
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', cli, ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    ),
  );
}

const txIdOf = (raw: string) =>
  `0x${createHash('sha512-256')
    .update(Buffer.from(raw.replace(/^0x/, ''), 'hex'))
    .digest('hex')}`;

let sys: TestSystem;
let api2: ServiceProcess;
let gateway: ServiceProcess;
let gatewayUrl: string;
let api2Url: string;
let key: { key: string; prefix: string };
const events = loadFixture(FIXTURE);
// The principal and transaction followed: the sender of the fixture's first STX transfer, and that transfer.
const firstTransfer = (() => {
  for (const e of events) {
    if (e.path !== '/new_block') continue;
    const body = JSON.parse(e.body) as { events: Array<{ txid: string; type: string; stx_transfer_event?: { sender: string } }> };
    const t = body.events.find((ev) => ev.type === 'stx_transfer_event');
    if (t) return { principal: t.stx_transfer_event!.sender, txId: t.txid };
  }
  throw new Error('no STX transfer in the fixture');
})();

beforeAll(async () => {
  const infra = testInfra();
  sys = await TestSystem.start({
    bus: 'kafka',
    serverUrl: infra.databaseUrl,
    kafkaBrokers: infra.kafkaBrokers,
    services: ['indexer', 'observer', 'api'],
  });
  const port2 = await freePort();
  api2 = startService('api', { ...sys.envFor('api'), API_PORT: String(port2) }, (n, line) => sys.logs.push(`${n}2 ${line}`));
  api2Url = `http://127.0.0.1:${port2}`;
  await waitForHttp(`${api2Url}/readyz`, 120_000);
  gateway = startService(
    'gateway',
    { ...sys.envFor('gateway'), API_URLS: `${sys.apiUrl},${api2Url}`, GATEWAY_WS_KEY_RECHECK_MS: '200' },
    (n, line) => sys.logs.push(`${n} ${line}`),
  );
  gatewayUrl = sys.gatewayUrl;
  await waitForHttp(`${gatewayUrl}/readyz`, 120_000);
  key = JSON.parse(await keysCli(sys.databaseUrl, ['create', '--json', '--owner', 'live-e2e'])) as typeof key;
});

afterAll(async () => {
  if (gateway) await stopService(gateway);
  if (api2) await stopService(api2);
  await sys?.stop();
});

describe('live updates through the gateway, fed by the indexer', () => {
  const socketClients: StacksApiSocketClient[] = [];
  const wsClients: StacksApiWebSocketClient[] = [];
  const inboxes: Topics[] = [];

  it('delivers every block once in height order, every mempool entry, the principal’s transactions and the transaction’s updates to clients on both replicas', async () => {
    const newTopics = (): Topics => ({ blocks: new Inbox(), mempool: new Inbox(), address: new Inbox(), tx: new Inbox() });
    for (let i = 0; i < 2; i++) {
      const t = newTopics();
      const client = new StacksApiSocketClient({
        url: gatewayUrl,
        subscriptions: [
          'block',
          'mempool',
          `address-transaction:${firstTransfer.principal}`,
          `transaction:${firstTransfer.txId}`,
        ],
        socketOpts: { extraHeaders: { 'x-api-key': key.key }, reconnection: false },
      });
      client.socket.on('block', (b) => t.blocks.push(b as never));
      client.socket.on('mempool', (tx) => t.mempool.push(tx as never));
      client.socket.on(`address-transaction:${firstTransfer.principal}`, (_a, tx) => t.address.push(tx as never));
      client.socket.on(`transaction:${firstTransfer.txId}`, (tx) => t.tx.push(tx as never));
      await new Promise<void>((resolve, reject) => {
        client.socket.once('connect', () => resolve());
        client.socket.once('connect_error', reject);
      });
      socketClients.push(client);
      inboxes.push(t);
    }
    for (let i = 0; i < 2; i++) {
      const t = newTopics();
      const client = await StacksApiWebSocketClient.connect(
        `${gatewayUrl.replace('http', 'ws')}/extended/v1/ws?x-api-key=${key.key}`,
      );
      await client.subscribeBlocks((b) => t.blocks.push(b as never));
      await client.subscribeMempool((tx) => t.mempool.push(tx as never));
      await client.subscribeAddressTransactions(firstTransfer.principal, (u) => t.address.push(u as never));
      await client.subscribeTxUpdates(firstTransfer.txId, (tx) => t.tx.push(tx as never));
      wsClients.push(client);
      inboxes.push(t);
    }
    // Each replica holds one connection of each kind.
    for (const url of [sys.apiUrl, api2Url]) {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toMatch(/api_live_connections\{[^}]*protocol="socket.io"[^}]*\} 1\b/);
      expect(text).toMatch(/api_live_connections\{[^}]*protocol="json-rpc"[^}]*\} 1\b/);
    }

    // The replay, one event at a time. After a mempool event, its transactions not mined by an earlier block must
    // reach every client as pending before the next event is posted (so no block can mine them first).
    const mined = new Set<string>();
    const expectedMempool: string[] = [];
    for (const e of events) {
      await replayEvents([e], { observerUrl: sys.observerUrl });
      if (e.path === '/new_block') {
        for (const tx of (JSON.parse(e.body) as { transactions: Array<{ txid: string }> }).transactions) mined.add(tx.txid);
      } else if (e.path === '/new_mempool_tx') {
        for (const raw of JSON.parse(e.body) as string[]) {
          const id = txIdOf(raw);
          if (!mined.has(id) && !expectedMempool.includes(id)) expectedMempool.push(id);
        }
        for (const t of inboxes) await t.mempool.count(expectedMempool.length);
      }
    }
    await sys.waitForCaughtUp();

    const { rows: canonical } = await sys.db.raw<{ rows: Array<{ block_height: number; block_hash: string }> }>(
      'SELECT block_height, block_hash FROM blocks WHERE canonical ORDER BY block_height',
    );
    expect(canonical.map((b) => b.block_height)).toEqual([...Array(13).keys()]);
    const { rows: history } = await sys.db.raw<{ rows: Array<{ tx_id: string }> }>(
      'SELECT tx_id FROM address_txs WHERE address = ? ORDER BY block_height, microblock_sequence, tx_index',
      [firstTransfer.principal],
    );
    expect(history.length).toBeGreaterThan(0);
    const minedTx = (await (await fetch(`${sys.apiUrl}/extended/v1/tx/${firstTransfer.txId}`)).json()) as { tx_status: string };
    expect(minedTx.tx_status).toBe('success');

    for (const t of inboxes) {
      const blocks = await t.blocks.count(canonical.length);
      expect(blocks.map((b) => [b.height, b.hash])).toEqual(canonical.map((b) => [b.block_height, b.block_hash]));
      const mempool = await t.mempool.count(expectedMempool.length);
      expect(mempool.map((m) => m.tx_id)).toEqual(expectedMempool);
      expect(mempool.every((m) => m.tx_status === 'pending')).toBe(true);
      const address = await t.address.count(history.length);
      expect(address.map((u) => u.tx.tx_id)).toEqual(history.map((h) => h.tx_id));
    }
    // Nothing more came: a sentinel announcement (the tip again) is the next message of every client's block topic.
    const tip = canonical[canonical.length - 1]!;
    const { rows: tipRow } = await sys.db.raw<{ rows: Array<{ index_block_hash: string }> }>(
      'SELECT index_block_hash FROM blocks WHERE canonical AND block_height = ?',
      [tip.block_height],
    );
    await sys.db.raw('SELECT pg_notify(?, ?)', [
      'bda_live',
      JSON.stringify({ type: 'block', index_block_hash: tipRow[0]!.index_block_hash, block_height: tip.block_height }),
    ]);
    for (const t of inboxes) {
      const all = await t.blocks.count(canonical.length + 1);
      expect(all[canonical.length]!.height).toBe(tip.block_height);
      expect(t.mempool.items.length).toBe(expectedMempool.length);
      expect(t.address.items.length).toBe(history.length);
      // Everything announced before the sentinel was sent before it: the transaction's last update is the REST
      // answer once mined.
      expect(t.tx.items[t.tx.items.length - 1]).toEqual(minedTx);
    }
  });

  it('refuses an invalid key with 401 before the upgrade, and closes the open connections of a revoked key', async () => {
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${gatewayUrl}/extended/v1/ws?x-api-key=bda_notARealKeyAtAllxxxxxxxxxxxxxxxxxxxxxxxxxx`, {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      req.on('upgrade', () => reject(new Error('upgraded with an invalid key')));
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ error: expect.any(String), message: expect.any(String) });

    const disconnected = socketClients.map((c) => new Promise<void>((resolve) => c.socket.once('disconnect', () => resolve())));
    const closed = wsClients.map(
      (c) => new Promise<void>((resolve) => (c.webSocket as unknown as WebSocket).addEventListener('close', () => resolve())),
    );
    await keysCli(sys.databaseUrl, ['revoke', key.prefix]);
    await Promise.all([...disconnected, ...closed]);
  });
});
