/**
 * Live updates end to end (issue 25, ADR 0025): fuzzed-transactions-1.tsv, then mocknet.tsv, posted to the observer one
 * event at a time, through Kafka and the indexer (which announces its commits), to two api replicas behind the gateway.
 * The official clients, unmodified (`StacksApiSocketClient` with the key in its header, `StacksApiWebSocketClient` with
 * the key in the query string, as a browser must), two of each so that each replica has both kinds (the gateway's pool
 * alternates), subscribe before the replay to `block`, `mempool`, `address-transaction:{p}` (one principal of each
 * recording) and `transaction:{id}` (the fuzzed recording's first STX transfer). Then the key is refused, and revoked.
 *
 * What each client must receive is computed here from the recordings' raw events (`ReplayOracle`), not from the
 * indexer's tables: fork choice over the `/new_block` bodies (the highest block wins with its ancestors, a tie keeps the
 * first), the mempool's entries, drops and mined transactions, and each transaction's principals decoded from its raw
 * bytes. The two recordings share a genesis: mocknet's first block (height 1) is a child of the fuzzed recording's block 0,
 * so mocknet's chain forks there and, once it is the higher one (its block 13), replaces the fuzzed blocks 1–12: that
 * commit announces mocknet's blocks 1–13 in height order, and returns the orphaned blocks' transactions to the mempool
 * (announced as pending, the followed transaction's update included).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { StacksApiSocketClient, StacksApiWebSocketClient } from '@stacks/blockchain-api-client';
import { addressFromVersionHash, addressToString, AuthType, deserializeTransaction } from '@stacks/transactions';
import type { RecordedEvent } from '@bda/observer';
import { freePort, Inbox, testInfra } from '@bda/test-support';
import { ROOT, startService, stopService, waitForHttp, type ServiceProcess } from '../../scripts/lib/service-process';
import { replayEvents } from '../../scripts/lib/replay-events';
import { EXPECTED_TIPS, loadFixture } from '../support/fixtures';
import { TestSystem } from '../support/test-system';

const FIXTURES = ['fuzzed-transactions-1.tsv', 'mocknet.tsv'] as const;
/** The microblock sequence an anchored transaction sorts under in a principal's history (after its microblocks'). */
const ANCHORED = 2147483647;

interface RawTx {
  txid: string;
  raw_tx: string;
  status: string;
  tx_index: number;
  microblock_sequence: number | null;
}

interface RawEvent {
  txid: string;
  type: string;
  committed?: boolean;
  stx_transfer_event?: { sender: string; recipient: string };
  stx_mint_event?: { recipient: string };
  stx_burn_event?: { sender: string };
}

interface RawBlock {
  index_block_hash: string;
  parent_index_block_hash: string;
  block_height: number;
  transactions: RawTx[];
  events: RawEvent[];
}

/** What the live topics must carry after one recorded event, in order. */
interface Expected {
  /** Blocks that became canonical, lowest first. */
  blocks: RawBlock[];
  /** Transactions that entered the mempool (pending). */
  entered: string[];
  /** Transactions a reorg returned to the mempool (pending; one announcement, in no particular order). */
  restored: string[];
  /** Transactions dropped from the mempool. */
  dropped: string[];
}

const txIdOf = (raw: string) =>
  `0x${createHash('sha512-256')
    .update(Buffer.from(raw.replace(/^0x/, ''), 'hex'))
    .digest('hex')}`;

/** The address of a spending condition: hash mode 0 (P2PKH) is a single-signature address (SP/ST), others SM/SN. */
function addressOf(cond: { hashMode: number; signer: string }, mainnet: boolean): string {
  const single = cond.hashMode === 0;
  const version = mainnet ? (single ? 22 : 20) : single ? 26 : 21;
  return addressToString(addressFromVersionHash(version, cond.signer));
}

/** A raw transaction's payload type and the principals it names: origin, sponsor, STX recipient, contract. */
function decodeTx(raw: string): { payloadType: number; principals: string[] } {
  const tx = deserializeTransaction(raw.replace(/^0x/, ''));
  const mainnet = tx.transactionVersion === 0;
  const origin = addressOf(tx.auth.spendingCondition, mainnet);
  const principals = [origin];
  if (tx.auth.authType === AuthType.Sponsored) principals.push(addressOf(tx.auth.sponsorSpendingCondition, mainnet));
  const p = tx.payload as unknown as Record<string, unknown>;
  const payloadType = p['payloadType'] as number;
  if (payloadType === 0) principals.push((p['recipient'] as { value: string }).value);
  if (payloadType === 1 || payloadType === 6) principals.push(`${origin}.${(p['contractName'] as { content: string }).content}`);
  if (payloadType === 2) {
    const a = p['contractAddress'] as { version: number; hash160: string };
    principals.push(
      `${addressToString(addressFromVersionHash(a.version, a.hash160))}.${(p['contractName'] as { content: string }).content}`,
    );
  }
  return { payloadType, principals };
}

/**
 * The principals of a block's transaction as a principal's history counts them (the reference API's): those the
 * transaction names, and the sender and recipient of its committed STX transfers, mints and burns if it succeeded.
 */
function partiesOf(block: RawBlock, tx: RawTx): Set<string> {
  const out = new Set(tx.raw_tx === '0x00' ? [] : decodeTx(tx.raw_tx).principals);
  if (tx.status !== 'success') return out;
  for (const e of block.events) {
    if (e.txid.toLowerCase() !== tx.txid || e.committed === false) continue;
    const parts = [
      e.stx_transfer_event?.sender,
      e.stx_transfer_event?.recipient,
      e.stx_mint_event?.recipient,
      e.stx_burn_event?.sender,
    ];
    for (const p of parts) if (p) out.add(p);
  }
  return out;
}

/** Payload types a reorg never returns to the mempool: poison microblock, coinbases, tenure change. */
const NOT_RESTORED = new Set([3, 4, 5, 7, 8]);

/** Fork choice and the mempool's life, replayed from the raw events (reference/node-events.md). */
class ReplayOracle {
  readonly blocks = new Map<string, RawBlock>();
  private readonly canonicalAt = new Map<number, string>();
  private tipHeight: number | null = null;
  private readonly mempool = new Map<string, 'pending' | 'mined' | 'dropped'>();

  private inCanonicalBlock(txId: string): boolean {
    for (const hash of this.canonicalAt.values())
      if (this.blocks.get(hash)!.transactions.some((t) => t.txid === txId)) return true;
    return false;
  }

  apply(e: RecordedEvent): Expected {
    const out: Expected = { blocks: [], entered: [], restored: [], dropped: [] };
    if (e.path === '/new_mempool_tx') {
      for (const raw of JSON.parse(e.body) as string[]) {
        const id = txIdOf(raw);
        if (this.mempool.get(id) === 'pending') continue;
        if (this.inCanonicalBlock(id)) {
          this.mempool.set(id, 'mined');
          continue;
        }
        this.mempool.set(id, 'pending');
        out.entered.push(id);
      }
    } else if (e.path === '/drop_mempool_tx') {
      for (const id of (JSON.parse(e.body) as { dropped_txids: string[] }).dropped_txids.map((t) => t.toLowerCase())) {
        if (this.mempool.get(id) !== 'pending') continue;
        this.mempool.set(id, 'dropped');
        out.dropped.push(id);
      }
    } else if (e.path === '/new_block') {
      const body = JSON.parse(e.body) as RawBlock;
      // A txid the block repeats counts once, at its first position.
      const txs = new Map<string, RawTx>();
      for (const t of body.transactions) {
        const txid = t.txid.toLowerCase();
        if (!txs.has(txid)) txs.set(txid, { ...t, txid, raw_tx: t.raw_tx.toLowerCase() });
      }
      const block: RawBlock = {
        ...body,
        index_block_hash: body.index_block_hash.toLowerCase(),
        parent_index_block_hash: body.parent_index_block_hash.toLowerCase(),
        transactions: [...txs.values()],
      };
      if (this.blocks.has(block.index_block_hash)) return out;
      const parentKnown = this.blocks.has(block.parent_index_block_hash);
      if (!parentKnown && this.tipHeight !== null && block.block_height - 1 > this.tipHeight) {
        throw new Error(`the oracle does not park blocks (${block.index_block_hash})`);
      }
      this.blocks.set(block.index_block_hash, block);
      if (this.tipHeight !== null && block.block_height <= this.tipHeight) {
        // Not higher than the tip: not canonical (a tie keeps the first). These recordings never fill a gap under a
        // canonical child, which would make it canonical.
        const child = [...this.canonicalAt.values()].some(
          (h) => this.blocks.get(h)!.parent_index_block_hash === block.index_block_hash,
        );
        if (child) throw new Error(`the oracle does not fill gaps (${block.index_block_hash})`);
        return out;
      }
      // The new tip and its ancestors down to the first block already canonical (or an unknown parent).
      const added: RawBlock[] = [];
      for (
        let cur: RawBlock | undefined = block;
        cur && this.canonicalAt.get(cur.block_height) !== cur.index_block_hash;
        cur = this.blocks.get(cur.parent_index_block_hash)
      ) {
        added.push(cur);
      }
      const orphaned = added.flatMap((b) => {
        const old = this.canonicalAt.get(b.block_height);
        return old ? [this.blocks.get(old)!] : [];
      });
      for (const b of added) this.canonicalAt.set(b.block_height, b.index_block_hash);
      this.tipHeight = block.block_height;
      out.blocks = added.reverse();
      for (const b of out.blocks) for (const t of b.transactions) if (this.mempool.has(t.txid)) this.mempool.set(t.txid, 'mined');
      // The orphaned blocks' transactions that no canonical block holds go back to the mempool, except those that
      // cannot be mined again.
      for (const b of orphaned) {
        for (const t of b.transactions) {
          if (t.raw_tx === '0x00' || NOT_RESTORED.has(decodeTx(t.raw_tx).payloadType) || this.inCanonicalBlock(t.txid)) continue;
          if (this.mempool.get(t.txid) === 'pending') continue;
          this.mempool.set(t.txid, 'pending');
          out.restored.push(t.txid);
        }
      }
    }
    return out;
  }
}

interface Topics {
  blocks: Inbox<{ height: number; index_block_hash: string }>;
  mempool: Inbox<{ tx_id: string; tx_status: string }>;
  /** By principal. */
  address: Map<string, Inbox<{ tx: { tx_id: string } }>>;
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

let sys: TestSystem;
let api2: ServiceProcess;
let gateway: ServiceProcess;
let gatewayUrl: string;
let api2Url: string;
let key: { key: string; prefix: string };
const recordings = FIXTURES.map((f) => ({ fixture: f, events: loadFixture(f) }));

/** The first STX transfer of the fuzzed recording: its sender is one principal followed, the transfer the transaction. */
const followed = (() => {
  for (const e of recordings[0]!.events) {
    if (e.path !== '/new_block') continue;
    const t = (JSON.parse(e.body) as RawBlock).events.find((ev) => ev.type === 'stx_transfer_event');
    if (t) return { principal: t.stx_transfer_event!.sender, txId: t.txid.toLowerCase() };
  }
  throw new Error('no STX transfer in the fuzzed recording');
})();
/** The other principal followed: the first one an STX event names in mocknet.tsv. */
const mocknetPrincipal = (() => {
  for (const e of recordings[1]!.events) {
    if (e.path !== '/new_block') continue;
    for (const ev of (JSON.parse(e.body) as RawBlock).events) {
      const p = ev.stx_transfer_event?.sender ?? ev.stx_mint_event?.recipient;
      if (p) return p;
    }
  }
  throw new Error('no STX event in mocknet.tsv');
})();
const principals = [followed.principal, mocknetPrincipal];

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

  it('delivers every block once as it becomes canonical, every mempool entry, the principals’ transactions and the transaction’s updates to clients on both replicas, while both recordings replay', async () => {
    const newTopics = (): Topics => ({
      blocks: new Inbox(),
      mempool: new Inbox(),
      address: new Map(principals.map((p) => [p, new Inbox<{ tx: { tx_id: string } }>()])),
      tx: new Inbox(),
    });
    for (let i = 0; i < 2; i++) {
      const t = newTopics();
      const client = new StacksApiSocketClient({
        url: gatewayUrl,
        subscriptions: [
          'block',
          'mempool',
          ...principals.map((p) => `address-transaction:${p}` as const),
          `transaction:${followed.txId}`,
        ],
        socketOpts: { extraHeaders: { 'x-api-key': key.key }, reconnection: false },
      });
      client.socket.on('block', (b) => t.blocks.push(b as never));
      client.socket.on('mempool', (tx) => t.mempool.push(tx as never));
      for (const p of principals) client.socket.on(`address-transaction:${p}`, (_a, tx) => t.address.get(p)!.push(tx as never));
      client.socket.on(`transaction:${followed.txId}`, (tx) => t.tx.push(tx as never));
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
      for (const p of principals) await client.subscribeAddressTransactions(p, (u) => t.address.get(p)!.push(u as never));
      await client.subscribeTxUpdates(followed.txId, (tx) => t.tx.push(tx as never));
      wsClients.push(client);
      inboxes.push(t);
    }
    // Each replica holds one connection of each kind.
    for (const url of [sys.apiUrl, api2Url]) {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toMatch(/api_live_connections\{[^}]*protocol="socket.io"[^}]*\} 1\b/);
      expect(text).toMatch(/api_live_connections\{[^}]*protocol="json-rpc"[^}]*\} 1\b/);
    }

    const oracle = new ReplayOracle();
    const blocks: Array<[number, string]> = [];
    const entered: string[] = [];
    const restored: string[] = [];
    const addressTxs = new Map<string, string[]>(principals.map((p) => [p, []]));
    const txStatuses: string[] = [];
    /** Every client has received everything expected so far (a sorted check for the restored set, sent as one batch). */
    const allArrived = async () => {
      for (const t of inboxes) {
        const got = await t.blocks.count(blocks.length);
        expect(got.map((b) => [b.height, b.index_block_hash])).toEqual(blocks);
        const mempool = await t.mempool.count(entered.length + restored.length);
        expect(mempool.slice(0, entered.length).map((m) => m.tx_id)).toEqual(entered);
        expect(
          mempool
            .slice(entered.length)
            .map((m) => m.tx_id)
            .sort(),
        ).toEqual([...restored].sort());
        expect(mempool.every((m) => m.tx_status === 'pending')).toBe(true);
        for (const p of principals) {
          const updates = await t.address.get(p)!.count(addressTxs.get(p)!.length);
          expect(updates.map((u) => u.tx.tx_id)).toEqual(addressTxs.get(p));
        }
        const tx = await t.tx.count(txStatuses.length);
        expect(tx.map((u) => [u.tx_id, u.tx_status])).toEqual(txStatuses.map((s) => [followed.txId, s]));
      }
    };

    // One event at a time. After a mempool event, its new transactions must reach every client as pending before the
    // next event is posted (so no block can mine them first); after each recording, everything it announced (so the
    // next one's reorg cannot orphan a block before the replicas read it).
    for (const { events } of recordings) {
      for (const e of events) {
        await replayEvents([e], { observerUrl: sys.observerUrl });
        const x = oracle.apply(e);
        for (const b of x.blocks) {
          blocks.push([b.block_height, b.index_block_hash]);
          const order = [...b.transactions].sort(
            (m, n) => (m.microblock_sequence ?? ANCHORED) - (n.microblock_sequence ?? ANCHORED) || m.tx_index - n.tx_index,
          );
          for (const p of principals) addressTxs.get(p)!.push(...order.filter((t) => partiesOf(b, t).has(p)).map((t) => t.txid));
          const mined = b.transactions.find((t) => t.txid === followed.txId);
          if (mined) txStatuses.push(mined.status);
        }
        entered.push(...x.entered);
        restored.push(...x.restored);
        if (x.entered.includes(followed.txId) || x.restored.includes(followed.txId)) txStatuses.push('pending');
        expect(x.dropped).not.toContain(followed.txId);
        if (x.entered.length > 0) for (const t of inboxes) await t.mempool.count(entered.length + restored.length);
      }
      await allArrived();
    }
    await sys.waitForCaughtUp();

    // The oracle's chain is the recordings' documented tip, and every topic had something to carry.
    const tip = EXPECTED_TIPS['mocknet.tsv']!;
    expect(blocks.at(-1)).toEqual([tip.height, tip.indexBlockHash]);
    expect(new Set(blocks.map(([, hash]) => hash)).size).toBe(blocks.length);
    expect(entered.length).toBeGreaterThan(0);
    expect(restored.length).toBeGreaterThan(0);
    for (const p of principals) expect(addressTxs.get(p)!.length).toBeGreaterThan(0);
    // The followed transaction was mined by a fuzzed block, then returned to the mempool by mocknet's reorg.
    expect(txStatuses.slice(-2)).toEqual(['success', 'pending']);

    // Nothing more came: a sentinel announcement (the tip again) is the next message of every client's block topic.
    await sys.db.raw('SELECT pg_notify(?, ?)', [
      'bda_live',
      JSON.stringify({ type: 'block', index_block_hash: tip.indexBlockHash, block_height: tip.height }),
    ]);
    const restTx = (await (await fetch(`${sys.apiUrl}/extended/v1/tx/${followed.txId}`)).json()) as { tx_status: string };
    for (const t of inboxes) {
      const all = await t.blocks.count(blocks.length + 1);
      expect(all[blocks.length]!.index_block_hash).toBe(tip.indexBlockHash);
      expect(t.mempool.items.length).toBe(entered.length + restored.length);
      for (const p of principals) expect(t.address.get(p)!.items.length).toBe(addressTxs.get(p)!.length);
      // Everything announced before the sentinel was sent before it: the transaction's last update is its REST answer.
      expect(t.tx.items.length).toBe(txStatuses.length);
      expect(t.tx.items.at(-1)).toEqual(restTx);
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
