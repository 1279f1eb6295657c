/**
 * The api's live family (ADR 0025) with the reference API's own clients, unmodified: `StacksApiSocketClient`
 * (socket.io) and `StacksApiWebSocketClient` (JSON-RPC), on an api serving a copy of the database into which
 * fuzzed-transactions-1.tsv was replayed through the real observer and indexer. Announcements are sent as the indexer
 * sends them, with `pg_notify` on real PostgreSQL (the indexer's side is test/e2e/live-updates.test.ts). Every payload
 * is compared with what the REST endpoint of the same entity answers.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { StacksApiSocketClient, StacksApiWebSocketClient } from '@stacks/blockchain-api-client';
import { io } from 'socket.io-client';
import { WebSocket } from 'ws';
import { closeServer, createHttpServer, createLogger, createMetricsRegistry } from '@bda/common';
import { createDb } from '@bda/db';
import { Inbox, testInfra } from '@bda/test-support';
import { buildRequestListener } from '../src/build-app';
import { attachLive, LIVE_CHANNEL, SLOW_CONSUMER_CLOSE_CODE, type Live, type LiveAnnouncement } from '../src/live';
import { replayedDatabase } from './support/replayed-database';

const logger = createLogger('live-test', 'silent');
const BUFFER_LIMIT = 16 * 1024;

let db: Knex;
let server: Server;
let live: Live;
let baseUrl: string;
let blocks: Array<{ index_block_hash: string; block_height: number }>;

async function rest(path: string): Promise<unknown> {
  const res = await fetch(baseUrl + path);
  expect(res.status).toBe(200);
  return res.json();
}

function notify(a: LiveAnnouncement): Promise<unknown> {
  return db.raw('SELECT pg_notify(?, ?)', [LIVE_CHANNEL, JSON.stringify(a)]);
}

const blockAnnouncement = (b: { index_block_hash: string; block_height: number }): LiveAnnouncement => ({
  type: 'block',
  index_block_hash: b.index_block_hash,
  block_height: b.block_height,
});

beforeAll(async () => {
  const url = await replayedDatabase(testInfra().databaseUrl, 'fuzzed-transactions-1.tsv');
  db = createDb({ connectionString: url, maxConnections: 5, applicationName: 'live-test' });
  server = createHttpServer(
    buildRequestListener({ db, logger, metrics: createMetricsRegistry('api'), isShuttingDown: () => false }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  // A long grace: the slow client below resumes reading after its drop and must still find the close frame; no ping
  // (a client that does not read does not answer pings either, and would be closed by the heartbeat instead).
  live = await attachLive({
    server,
    db,
    listenUrl: url,
    logger,
    limits: {
      maxBufferedBytes: BUFFER_LIMIT,
      dropGraceMs: 600_000,
      pingIntervalMs: 600_000,
    },
  });
  blocks = (
    await db.raw<{ rows: typeof blocks }>(
      'SELECT index_block_hash, block_height FROM blocks WHERE canonical ORDER BY block_height',
    )
  ).rows;
  expect(blocks.length).toBe(13);
});

afterAll(async () => {
  await live?.close();
  if (server) await closeServer(server);
  await db?.destroy();
});

describe('live updates on the api', () => {
  it('socket.io: StacksApiSocketClient gets each announced block once, in order, as GET /extended/v1/block/by_height/{height} answers it (the v1 block); an orphaned block is never sent', async () => {
    const client = new StacksApiSocketClient({ url: baseUrl, subscriptions: ['block'] });
    const inbox = new Inbox<unknown>();
    client.socket.on('block', inbox.push);
    await new Promise<void>((resolve) => client.socket.once('connect', () => resolve()));
    try {
      // Block 5 loses its canonical flag before its announcement is read: the REST API no longer has it.
      const orphan = blocks[5]!;
      await db.raw('UPDATE blocks SET canonical = false WHERE index_block_hash = ?', [orphan.index_block_hash]);
      const announced = blocks.slice(1, 9);
      for (const b of announced) await notify(blockAnnouncement(b));
      const expected = announced.filter((b) => b !== orphan);
      const got = await inbox.count(expected.length);
      await db.raw('UPDATE blocks SET canonical = true WHERE index_block_hash = ?', [orphan.index_block_hash]);
      // One more: proves nothing else (the orphan) was queued before it.
      await notify(blockAnnouncement(blocks[12]!));
      const all = await inbox.count(expected.length + 1);
      const want = [];
      for (const b of [...expected, blocks[12]!]) want.push(await rest(`/extended/v1/block/by_height/${b.block_height}`));
      expect(got).toEqual(want.slice(0, expected.length));
      expect(all).toEqual(want);
      expect((all as Array<{ height: number }>).map((b) => b.height)).toEqual([1, 2, 3, 4, 6, 7, 8, 12]);
    } finally {
      client.socket.close();
    }
  });

  it('JSON-RPC: StacksApiWebSocketClient gets block, tx_update, address_tx_update and address_balance_update as the REST endpoints answer them', async () => {
    // A block with an STX transfer: its sender's and recipient's updates, computed here from the REST transaction.
    const { rows } = await db.raw<{
      rows: Array<{ index_block_hash: string; tx_id: string; sender: string; recipient: string }>;
    }>(
      `SELECT e.index_block_hash, e.tx_id, e.sender, e.recipient FROM events e
       WHERE e.canonical AND e.type = 'stx_transfer_event' AND e.sender <> e.recipient ORDER BY e.block_height DESC LIMIT 1`,
    );
    const transfer = rows[0]!;
    const block = blocks.find((b) => b.index_block_hash === transfer.index_block_hash)!;
    const client = await StacksApiWebSocketClient.connect(baseUrl);
    const blocksIn = new Inbox<unknown>();
    const txIn = new Inbox<unknown>();
    const addressIn = new Inbox<unknown>();
    const balanceIn = new Inbox<unknown>();
    await client.subscribeBlocks(blocksIn.push);
    await client.subscribeTxUpdates(transfer.tx_id, txIn.push);
    await client.subscribeAddressTransactions(transfer.recipient, addressIn.push);
    await client.subscribeAddressBalanceUpdates(transfer.sender, balanceIn.push);
    try {
      await notify(blockAnnouncement(block));
      const [gotBlock] = await blocksIn.count(1);
      const [gotTx] = await txIn.count(1);
      const [gotAddress] = await addressIn.count(1);
      const [gotBalance] = await balanceIn.count(1);
      expect(gotBlock).toEqual(await rest(`/extended/v1/block/by_height/${block.block_height}`));
      const tx = (await rest(`/extended/v1/tx/${transfer.tx_id}`)) as {
        tx_id: string;
        tx_status: string;
        tx_type: string;
        events: Array<{ event_type: string; asset?: { sender?: string; recipient?: string; amount?: string } }>;
      };
      expect(gotTx).toEqual(tx);
      // What the transaction moved for its recipient, from the REST answer's own events.
      const received = tx.events
        .filter((e) => e.event_type === 'stx_asset' && e.asset?.recipient === transfer.recipient)
        .reduce((sum, e) => sum + BigInt(e.asset!.amount!), 0n);
      expect(received).toBeGreaterThan(0n);
      expect(gotAddress).toMatchObject({
        address: transfer.recipient,
        tx_id: tx.tx_id,
        tx_status: tx.tx_status,
        tx_type: tx.tx_type,
        tx,
        stx_received: received.toString(),
      });
      expect(gotBalance).toEqual({
        address: transfer.sender,
        ...((await rest(`/extended/v1/address/${transfer.sender}/stx`)) as object),
      });
    } finally {
      (client.webSocket as unknown as { close(): void }).close();
    }
  });

  it('mempool announcements reach mempool and transaction:{id} subscribers as GET /extended/v1/tx/{id} answers them', async () => {
    const { rows } = await db.raw<{ rows: Array<{ tx_id: string }> }>(`SELECT tx_id FROM mempool_txs WHERE status = 'pending'`);
    expect(rows.length).toBe(1);
    const txId = rows[0]!.tx_id;
    const client = new StacksApiSocketClient({ url: baseUrl, subscriptions: ['mempool', `transaction:${txId}`] });
    const mempool = new Inbox<unknown>();
    const updates = new Inbox<unknown>();
    client.socket.on('mempool', mempool.push);
    client.socket.on(`transaction:${txId}`, updates.push);
    await new Promise<void>((resolve) => client.socket.once('connect', () => resolve()));
    try {
      await notify({ type: 'mempool', tx_ids: [txId] });
      const expected = await rest(`/extended/v1/tx/${txId}`);
      expect((expected as { tx_status: string }).tx_status).toBe('pending');
      expect(await mempool.count(1)).toEqual([expected]);
      expect(await updates.count(1)).toEqual([expected]);
    } finally {
      client.socket.close();
    }
  });

  it('refuses what is not a topic: at the socket.io handshake, on subscribe (acknowledged with the error), and in JSON-RPC (-32700, -32601, -32602)', async () => {
    const refused = io(baseUrl, {
      transports: ['websocket'],
      query: { subscriptions: 'block,transaction:0x12' },
      reconnection: false,
    });
    const error = await new Promise<Error>((resolve) => refused.once('connect_error', resolve));
    refused.close();
    expect(error.message).toMatch(/^Invalid topic: transaction:0x12/);

    const ok = io(baseUrl, { transports: ['websocket'], reconnection: false });
    try {
      await new Promise<void>((resolve) => ok.once('connect', () => resolve()));
      const ack = await new Promise<unknown>((resolve) => ok.emit('subscribe', 'address-transaction:SPnotanaddress', resolve));
      expect(ack).toMatch(/^Invalid topic: address-transaction:SPnotanaddress/);
      const fine = await new Promise<unknown>((resolve) => ok.emit('subscribe', ['block', 'nft-event'], resolve));
      expect(fine).toBeNull();
    } finally {
      ok.close();
    }

    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/extended/v1/ws`);
    const answers = new Inbox<Record<string, unknown>>();
    ws.on('message', (data) => answers.push(JSON.parse(String(data)) as Record<string, unknown>));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send('{not json');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'watch', params: { event: 'block' } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'subscribe', params: { event: 'tx_update', tx_id: 'nope' } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'subscribe', params: { event: 'weather' } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'subscribe', params: { event: 'block' } }));
    ws.send(JSON.stringify([{ jsonrpc: '2.0', id: 10, method: 'subscribe', params: { event: 'mempool' } }]));
    const got = await answers.count(5);
    ws.close();
    expect(got.map((a) => [a['id'], (a['error'] as { code?: number } | undefined)?.code])).toEqual([
      [null, -32700],
      [7, -32601],
      [8, -32602],
      [9, -32602],
      [undefined, undefined],
    ]);
    expect(got[4]).toEqual([{ jsonrpc: '2.0', id: 10, result: {} }]);
  });

  it('drops a client that stops reading (close code 4008) once its unread bytes would pass the limit, never buffering more; the others get every message', async () => {
    const wsUrl = `${baseUrl.replace('http', 'ws')}/extended/v1/ws`;
    const subscribe = async (ws: WebSocket) => {
      await new Promise((resolve) => ws.once('open', resolve));
      const answered = new Promise((resolve) => ws.once('message', resolve));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { event: 'block' } }));
      await answered;
    };
    const slow = new WebSocket(wsUrl);
    await subscribe(slow);
    const reader = new WebSocket(wsUrl);
    await subscribe(reader);
    const received = new Inbox<unknown>();
    reader.on('message', (data) => received.push(JSON.parse(String(data))));
    const closed = new Promise<number>((resolve) => slow.once('close', (code) => resolve(code)));
    // The slow client stops reading its socket: what the api sends piles up in the kernel, then in the api.
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();
    const droppedBefore = live.wsRpc.droppedSlow;
    // Publications of 10 kB straight to the channel (the announcement path is the tests above): the kernel's socket
    // buffers fill in a few hundred, then the api's own. Each waits a turn of the event loop, so the reader reads.
    const payload = { filler: 'x'.repeat(10_000) };
    let sent = 0;
    while (live.wsRpc.droppedSlow === droppedBefore) {
      live.wsRpc.publish({ key: 'block', socketIoArgs: [payload], rpcMethod: 'block', rpcParams: { n: sent, ...payload } });
      sent++;
      expect(sent).toBeLessThan(100_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The unread bytes the api held for it never passed the limit (its memory for a client is bounded by it).
    expect(live.wsRpc.lastDroppedBufferedBytes).toBeGreaterThan(0);
    expect(live.wsRpc.lastDroppedBufferedBytes).toBeLessThanOrEqual(BUFFER_LIMIT);
    live.wsRpc.publish({ key: 'block', socketIoArgs: [payload], rpcMethod: 'block', rpcParams: { n: sent, ...payload } });
    sent++;
    // Every publication reached the client that reads, in order, the one after the drop included.
    const got = (await received.count(sent)) as Array<{ params: { n: number } }>;
    expect(got.map((m) => m.params.n)).toEqual([...Array(sent).keys()]);
    // Reading again, the slow client finds what was sent before the drop, then the close frame with its code.
    (slow as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toBe(SLOW_CONSUMER_CLOSE_CODE);
    reader.close();
  });

  it('drops a socket.io client that stops reading (its WebSocket closed with 4008) once its unread bytes would pass the limit; a reading client gets everything', async () => {
    const slow = new StacksApiSocketClient({ url: baseUrl, subscriptions: ['block'], socketOpts: { reconnection: false } });
    const reader = new StacksApiSocketClient({ url: baseUrl, subscriptions: ['block'], socketOpts: { reconnection: false } });
    const received = new Inbox<{ n: number }>();
    reader.socket.on('block', (b) => received.push(b as unknown as { n: number }));
    await Promise.all([slow, reader].map((c) => new Promise<void>((resolve) => c.socket.once('connect', () => resolve()))));
    const closed = new Promise<unknown>((resolve) => slow.socket.once('disconnect', (_reason, details) => resolve(details)));
    // The official client's WebSocket (engine.io on `ws`) stops reading its socket.
    const transport = (
      slow.socket.io as unknown as { engine: { transport: { ws: { _socket: { pause(): void; resume(): void } } } } }
    ).engine.transport.ws._socket;
    transport.pause();
    const droppedBefore = live.socketIo.droppedSlow;
    const payload = 'x'.repeat(10_000);
    let sent = 0;
    while (live.socketIo.droppedSlow === droppedBefore) {
      live.socketIo.publish({ key: 'block', socketIoArgs: [{ n: sent, payload }], rpcMethod: 'block', rpcParams: {} });
      sent++;
      expect(sent).toBeLessThan(100_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    live.socketIo.publish({ key: 'block', socketIoArgs: [{ n: sent, payload }], rpcMethod: 'block', rpcParams: {} });
    sent++;
    const got = await received.count(sent);
    expect(got.map((m) => m.n)).toEqual([...Array(sent).keys()]);
    transport.resume();
    const details = (await closed) as { context?: { code?: number } };
    expect(details.context?.code).toBe(SLOW_CONSUMER_CLOSE_CODE);
    reader.socket.close();
  });
});
