/**
 * Live updates across reorgs (ADR 0025): mainnet-reorg-scenario1.tsv (50 blocks, 3 of them orphaned in the end) posted
 * to the observer one event at a time, through Kafka and the indexer, to an api whose clients (the official ones,
 * unmodified) subscribe to `block`. After each event, the canonical chain is read from the database: the blocks that
 * became canonical with it, lowest first, are exactly the next messages each client gets; blocks that left the chain
 * are never sent as new.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StacksApiSocketClient, StacksApiWebSocketClient } from '@stacks/blockchain-api-client';
import { Inbox, testInfra } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { EXPECTED_TIPS, loadFixture } from '../support/fixtures';
import { minedTx, newBlockBody, postNodeEvents, transferEvent, transferWithNonce } from '../support/node-event-sender';
import { TestSystem } from '../support/test-system';

const FIXTURE = 'mainnet-reorg-scenario1.tsv';

type Block = { height: number; index_block_hash: string };

let sys: TestSystem;

beforeAll(async () => {
  const infra = testInfra();
  sys = await TestSystem.start({
    bus: 'kafka',
    serverUrl: infra.databaseUrl,
    kafkaBrokers: infra.kafkaBrokers,
    services: ['indexer', 'observer', 'api'],
  });
});

afterAll(async () => {
  await sys?.stop();
});

async function canonical(): Promise<Map<string, number>> {
  const { rows } = await sys.db.raw<{ rows: Array<{ index_block_hash: string; block_height: number }> }>(
    'SELECT index_block_hash, block_height FROM blocks WHERE canonical',
  );
  return new Map(rows.map((r) => [r.index_block_hash, r.block_height]));
}

async function pending(): Promise<Set<string>> {
  const { rows } = await sys.db.raw<{ rows: Array<{ tx_id: string }> }>(`SELECT tx_id FROM mempool_txs WHERE status = 'pending'`);
  return new Set(rows.map((r) => r.tx_id));
}

describe('live updates across reorgs', () => {
  it('announces exactly the blocks each commit made canonical, in height order, to socket.io and JSON-RPC clients (and its canonical microblocks); orphaned blocks are never sent as new', async () => {
    const socketInbox = new Inbox<Block>();
    const socketClient = new StacksApiSocketClient({
      url: sys.apiUrl,
      subscriptions: ['block'],
      socketOpts: { reconnection: false },
    });
    socketClient.socket.on('block', (b) => socketInbox.push(b as unknown as Block));
    await new Promise<void>((resolve) => socketClient.socket.once('connect', () => resolve()));
    const microInbox = new Inbox<{ microblock_hash: string }>();
    socketClient.socket.on('microblock', (m) => microInbox.push(m as unknown as { microblock_hash: string }));
    await new Promise<unknown>((resolve) => socketClient.socket.emit('subscribe', 'microblock', resolve));
    const mempoolInbox = new Inbox<{ tx_id: string; tx_status: string }>();
    socketClient.socket.on('mempool', (tx) => mempoolInbox.push(tx as unknown as { tx_id: string; tx_status: string }));
    await new Promise<unknown>((resolve) => socketClient.socket.emit('subscribe', 'mempool', resolve));
    const rpcInbox = new Inbox<Block>();
    const rpcClient = await StacksApiWebSocketClient.connect(sys.apiUrl);
    await rpcClient.subscribeBlocks((b) => rpcInbox.push(b as unknown as Block));

    try {
      const expected: Array<[number, string]> = [];
      const expectedMempool: string[] = [];
      const expectedMicro: string[] = [];
      let pendingBefore = await pending();
      const everCanonical = new Set<string>();
      let before = await canonical();
      for (const event of loadFixture(FIXTURE)) {
        const hashes =
          event.path === '/new_microblocks'
            ? (JSON.parse(event.body) as { transactions: Array<{ microblock_hash: string }> }).transactions.map((t) =>
                t.microblock_hash.toLowerCase(),
              )
            : [];
        // Microblocks an anchored block already recorded are not new.
        const { rows: known } = await sys.db.raw<{ rows: Array<{ microblock_hash: string }> }>(
          'SELECT microblock_hash FROM microblocks WHERE microblock_hash = ANY(?)',
          [hashes],
        );
        await replayEvents([event], { observerUrl: sys.observerUrl });
        if (event.path === '/new_microblocks') {
          // Its new microblocks that are canonical once it is applied are announced, in stream order.
          await sys.waitForCaughtUp();
          const { rows } = await sys.db.raw<{ rows: Array<{ microblock_hash: string }> }>(
            'SELECT microblock_hash FROM microblocks WHERE microblock_hash = ANY(?) AND canonical ORDER BY microblock_sequence, microblock_hash',
            [hashes],
          );
          const old = new Set(known.map((r) => r.microblock_hash));
          for (const r of rows)
            if (!old.has(r.microblock_hash) && !expectedMicro.includes(r.microblock_hash)) expectedMicro.push(r.microblock_hash);
          const micro = await microInbox.count(expectedMicro.length);
          expect(micro.map((m) => m.microblock_hash)).toEqual(expectedMicro);
          continue;
        }
        if (event.path !== '/new_block') continue;
        await sys.waitForCaughtUp();
        const after = await canonical();
        const added = [...after].filter(([hash]) => !before.has(hash)).sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
        for (const [hash, height] of added) {
          everCanonical.add(hash);
          expected.push([height, hash]);
        }
        before = after;
        // Transactions of orphaned blocks that the reorg returned to the mempool enter it: announced as pending.
        const pendingAfter = await pending();
        expectedMempool.push(...[...pendingAfter].filter((id) => !pendingBefore.has(id)).sort());
        pendingBefore = pendingAfter;
        const mempool = await mempoolInbox.count(expectedMempool.length);
        expect(mempool.map((m) => [m.tx_id, m.tx_status])).toEqual(expectedMempool.map((id) => [id, 'pending']));
        // The messages of this event, before the next is posted.
        for (const inbox of [socketInbox, rpcInbox]) {
          const got = await inbox.count(expected.length);
          expect(got.map((b) => [b.height, b.index_block_hash])).toEqual(expected);
        }
      }
      const tip = EXPECTED_TIPS[FIXTURE]!;
      const final = await canonical();
      expect(Math.max(...final.values())).toBe(tip.height);
      // The reorgs happened: some block was canonical and is not in the end, and each final block was announced.
      expect([...everCanonical].some((hash) => !final.has(hash))).toBe(true);
      for (const hash of final.keys()) expect(everCanonical.has(hash)).toBe(true);
      // Nothing more was sent: a sentinel announcement is the next message of both clients.
      await sys.db.raw('SELECT pg_notify(?, ?)', [
        'bda_live',
        JSON.stringify({ type: 'block', index_block_hash: tip.indexBlockHash, block_height: tip.height }),
      ]);
      for (const inbox of [socketInbox, rpcInbox]) {
        const all = await inbox.count(expected.length + 1);
        expect(all[expected.length]!.index_block_hash).toBe(tip.indexBlockHash);
      }
      expect(mempoolInbox.items.length).toBe(expectedMempool.length);
      expect(microInbox.items.length).toBe(expectedMicro.length);
      expect(expectedMicro.length).toBeGreaterThan(0);
    } finally {
      socketClient.socket.close();
      (rpcClient.webSocket as unknown as WebSocket).close();
    }
  });

  it('a reorg that orphans a block returns its transaction to the mempool: announced pending on mempool and transaction:{id}, the new branch’s blocks announced in height order', async () => {
    const tip = EXPECTED_TIPS[FIXTURE]!;
    const { rows } = await sys.db.raw<{ rows: Array<{ block_hash: string }> }>(
      'SELECT block_hash FROM blocks WHERE index_block_hash = ?',
      [tip.indexBlockHash],
    );
    const tipRef = { index_block_hash: tip.indexBlockHash, block_hash: rows[0]!.block_hash, block_height: tip.height };
    const transfer = transferWithNonce(0n);
    const blocks = new Inbox<Block>();
    const mempool = new Inbox<{ tx_id: string; tx_status: string }>();
    const updates = new Inbox<{ tx_id: string; tx_status: string }>();
    const client = new StacksApiSocketClient({
      url: sys.apiUrl,
      subscriptions: ['block', 'mempool', `transaction:${transfer.txid}`],
      socketOpts: { reconnection: false },
    });
    client.socket.on('block', (b) => blocks.push(b as unknown as Block));
    client.socket.on('mempool', (tx) => mempool.push(tx as never));
    client.socket.on(`transaction:${transfer.txid}`, (tx) => updates.push(tx as never));
    await new Promise<void>((resolve) => client.socket.once('connect', () => resolve()));
    try {
      const a1 = newBlockBody('live a1', tipRef, { txs: [minedTx(transfer, 0)], events: [transferEvent(transfer.txid, 0)] });
      await postNodeEvents(sys, [['/new_block', a1.body]]);
      expect((await blocks.count(1)).map((b) => b.index_block_hash)).toEqual([a1.ref.index_block_hash]);
      expect((await updates.count(1))[0]!.tx_status).toBe('success');
      // A sibling branch, one block longer: a1 is orphaned, and its transfer, in no block of the new branch, is pending.
      const b1 = newBlockBody('live b1', tipRef);
      const b2 = newBlockBody('live b2', b1.ref);
      await postNodeEvents(sys, [
        ['/new_block', b1.body],
        ['/new_block', b2.body],
      ]);
      const got = await blocks.count(3);
      expect(got.slice(1).map((b) => [b.height, b.index_block_hash])).toEqual([
        [tip.height + 1, b1.ref.index_block_hash],
        [tip.height + 2, b2.ref.index_block_hash],
      ]);
      const [pendingAgain] = await mempool.count(1);
      const rest = await (await fetch(`${sys.apiUrl}/extended/v1/tx/${transfer.txid}`)).json();
      expect(pendingAgain).toEqual(rest);
      expect(pendingAgain!.tx_status).toBe('pending');
      expect((await updates.count(2))[1]).toEqual(rest);
    } finally {
      client.socket.close();
    }
  });
});
