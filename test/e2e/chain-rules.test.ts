import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { RECEIPT_TIME_COLUMNS, tableChecksums } from '../support/table-checksums';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

const REORG = 'mainnet-reorg-scenario1.tsv';

describe('fork choice on real mainnet forks', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres');
    await replayEvents(loadFixture(REORG), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await sys.waitForCaughtUp();
  });
  afterAll(() => sys?.stop());

  it('leaves exactly three of the fifty blocks non-canonical', async () => {
    const rows: Array<{ canonical: boolean; n: string }> = await sys
      .db('blocks')
      .select('canonical')
      .count({ n: '*' })
      .groupBy('canonical');
    const byFlag = Object.fromEntries(rows.map((r) => [String(r.canonical), Number(r.n)]));
    expect(byFlag).toEqual({ true: 47, false: 3 });
  });

  it('serves none of the orphaned transactions or events from any read endpoint', async () => {
    const orphanedTxs: Array<{ tx_id: string; sender_address: string }> = await sys
      .db('txs')
      .where({ canonical: false })
      .whereNotIn('tx_id', sys.db('txs').where({ canonical: true }).select('tx_id'))
      .select('tx_id', 'sender_address');
    expect(orphanedTxs.length).toBeGreaterThan(0);
    for (const tx of orphanedTxs) {
      const res = await fetch(`${sys.gatewayUrl}/extended/v1/tx/${tx.tx_id}`);
      const body = (await res.json()) as { tx_status?: string };
      // Never as mined; at most back in the mempool, waiting to be mined again.
      if (res.status === 200) expect(body.tx_status).toBe('pending');
      else expect(res.status).toBe(404);
      const history = (await (
        await fetch(`${sys.gatewayUrl}/extended/v1/address/${tx.sender_address}/transactions?limit=50`)
      ).json()) as {
        results: Array<{ tx_id: string }>;
      };
      expect(history.results.map((r) => r.tx_id)).not.toContain(tx.tx_id);
    }
    const orphanedBlocks: Array<{ block_height: number; index_block_hash: string }> = await sys
      .db('blocks')
      .where({ canonical: false })
      .select('block_height', 'index_block_hash');
    for (const b of orphanedBlocks) {
      const res = (await (await fetch(`${sys.gatewayUrl}/extended/v2/blocks/${b.block_height}`)).json()) as {
        index_block_hash: string;
      };
      expect(res.index_block_hash).not.toBe(b.index_block_hash);
    }
    // Events of orphaned blocks are flagged with their block.
    const leaked = await sys
      .db('events')
      .where({ canonical: true })
      .whereIn(
        'index_block_hash',
        orphanedBlocks.map((b) => b.index_block_hash),
      );
    expect(leaked).toEqual([]);
  });

  it('gives the microblocks that both children of a fork confirm to the child that ends canonical', async () => {
    // Block 29 of this file has two children that confirm its stream; the first to arrive loses the reorg.
    const { rows } = await sys.db.raw<{ rows: Array<{ n: string; wrong: string }> }>(
      `SELECT count(*) AS n,
              count(*) FILTER (WHERE m.index_block_hash IS DISTINCT FROM c.index_block_hash OR NOT m.canonical) AS wrong
       FROM microblocks m JOIN blocks c ON c.parent_index_block_hash = m.parent_index_block_hash AND c.canonical
       WHERE m.microblock_canonical`,
    );
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    expect(rows[0]!.wrong).toBe('0');
    const forked = await sys
      .db('blocks as p')
      .join('blocks as c', 'c.parent_index_block_hash', 'p.index_block_hash')
      .join('microblocks as m', 'm.parent_index_block_hash', 'p.index_block_hash')
      .groupBy('p.index_block_hash')
      .havingRaw('count(DISTINCT c.index_block_hash) > 1')
      .select('p.index_block_hash');
    expect(forked.length).toBeGreaterThan(0);
  });

  it('changes no table when the same file is replayed again', async () => {
    const before = await tableChecksums(sys.db);
    await replayEvents(loadFixture(REORG), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await sys.waitForCaughtUp();
    expect(await tableChecksums(sys.db)).toEqual(before);
  });

  it('ends with the same tables when every row of the file arrives twice', async () => {
    const doubled = await startSystem('postgres', ['indexer', 'observer']);
    try {
      await replayEvents(
        loadFixture(REORG).flatMap((e) => [e, e]),
        { observerUrl: doubled.observerUrl, maxRetryMs: 30_000 },
      );
      await doubled.waitForCaughtUp();
      expect(await tableChecksums(doubled.db, RECEIPT_TIME_COLUMNS)).toEqual(await tableChecksums(sys.db, RECEIPT_TIME_COLUMNS));
    } finally {
      await doubled.stop();
    }
  });
});

describe('a block that arrives before its parent', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer']);
  });
  afterAll(() => sys?.stop());

  it('is parked while the stream goes on, and applied once the parent arrives', async () => {
    const blocks = loadFixture('mocknet.tsv').filter((e) => e.path === '/new_block');
    const heightOf = (e: { body: string }) => (JSON.parse(e.body) as { block_height: number }).block_height;
    const byHeight = new Map(blocks.map((b) => [heightOf(b), b]));
    // 1..5, then 7 and 8 (their parent 6 is missing), then a burn block, then 6.
    await replayEvents(
      [1, 2, 3, 4, 5, 7, 8].map((h) => byHeight.get(h)!),
      { observerUrl: sys.observerUrl },
    );
    await sys.waitForCaughtUp();
    expect((await sys.db('chain_tip').first()).block_height).toBe(5);
    expect(await sys.db('parked_blocks').pluck('block_height')).toEqual(expect.arrayContaining([7, 8]));
    await replayEvents([byHeight.get(6)!, byHeight.get(9)!], { observerUrl: sys.observerUrl });
    await sys.waitForCaughtUp();
    expect((await sys.db('chain_tip').first()).block_height).toBe(9);
    expect(await sys.db('parked_blocks').count({ n: '*' })).toEqual([{ n: '0' }]);
    const canonical = await sys.db('blocks').where({ canonical: true }).orderBy('block_height').pluck('block_height');
    expect(canonical).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('a malformed block', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer']);
  });
  afterAll(() => sys?.stop());

  it('indexes a block whose transactions repeat a tx_index, with one history row per principal and position', async () => {
    const blocks = loadFixture('mocknet.tsv').filter((e) => e.path === '/new_block');
    type Body = { block_height: number; index_block_hash: string; transactions: Array<{ txid: string; tx_index: number }> };
    const bodyOf = (e: { body: string }) => JSON.parse(e.body) as Body;
    const tip = bodyOf(blocks.find((b) => bodyOf(b).block_height === 10)!);
    const twin = { ...tip.transactions[0]!, txid: `0x${'ab'.repeat(32)}` };
    const malformed = { ...tip, transactions: [...tip.transactions, twin] };
    const tenth = blocks.find((b) => bodyOf(b).block_height === 10)!;
    await replayEvents(
      blocks.filter((b) => bodyOf(b).block_height < 10),
      { observerUrl: sys.observerUrl },
    );
    await replayEvents([{ ...tenth, body: JSON.stringify(malformed) }], { observerUrl: sys.observerUrl });
    await sys.waitForCaughtUp();
    expect((await sys.db('chain_tip').first()).block_height).toBe(10);
    expect(await sys.db('dead_letters').count({ n: '*' })).toEqual([{ n: '0' }]);
    const txs = await sys.db('txs').where({ index_block_hash: tip.index_block_hash }).pluck('tx_index');
    expect(txs).toEqual([twin.tx_index, twin.tx_index]);
    const history = await sys.db('address_txs').where({ block_height: 10 }).select('address', 'tx_index', 'microblock_sequence');
    expect(history.length).toBeGreaterThan(0);
    const keys = history.map(
      (r: { address: string; tx_index: number; microblock_sequence: number }) =>
        `${r.address}/${r.microblock_sequence}/${r.tx_index}`,
    );
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('burn blocks', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer']);
  });
  afterAll(() => sys?.stop());

  const MAX_U128 = '340282366920938463463374607431768211455';
  const burnBlock = (hash: string, extra: Record<string, unknown> = {}) => ({
    id: hash,
    receivedAt: '2024-01-01 00:00:00+00',
    path: '/new_burn_block',
    body: JSON.stringify({ burn_block_hash: `0x${hash.repeat(64)}`, burn_block_height: 800_000, burn_amount: 0, ...extra }),
  });

  it('keeps the newest block at a height canonical, with its rewards and slot holders exact and in order', async () => {
    const a = burnBlock('a', {
      consensus_hash: `0x${'c'.repeat(40)}`,
      parent_burn_block_hash: `0x${'9'.repeat(64)}`,
      burn_amount: MAX_U128,
      reward_recipients: [
        { recipient: 'bc1qfirst', amt: MAX_U128 },
        { recipient: 'bc1qsecond', amt: 5 },
      ],
      reward_slot_holders: ['bc1qfirst', 'bc1qfirst', 'bc1qthird'],
    });
    // A repeat changes nothing; a new hash at the height takes its place; the old hash announced again does not.
    await replayEvents([a, a, burnBlock('b'), a], { observerUrl: sys.observerUrl });
    await sys.waitForCaughtUp();
    const blocks = await sys.db('burn_blocks').orderBy('burn_block_hash').select();
    expect(blocks).toEqual([
      {
        burn_block_hash: `0x${'a'.repeat(64)}`,
        burn_block_height: 800_000,
        parent_burn_block_hash: `0x${'9'.repeat(64)}`,
        consensus_hash: `0x${'c'.repeat(40)}`,
        burn_amount: MAX_U128,
        canonical: false,
      },
      {
        burn_block_hash: `0x${'b'.repeat(64)}`,
        burn_block_height: 800_000,
        parent_burn_block_hash: null,
        consensus_hash: null,
        burn_amount: '0',
        canonical: true,
      },
    ]);
    const rewards = await sys
      .db('burn_block_rewards')
      .orderBy('reward_index')
      .select('burn_block_hash', 'reward_index', 'recipient', 'amount');
    expect(rewards).toEqual([
      { burn_block_hash: `0x${'a'.repeat(64)}`, reward_index: 0, recipient: 'bc1qfirst', amount: MAX_U128 },
      { burn_block_hash: `0x${'a'.repeat(64)}`, reward_index: 1, recipient: 'bc1qsecond', amount: '5' },
    ]);
    const slots = await sys
      .db('burn_block_slot_holders')
      .orderBy('slot_index')
      .select('slot_index', 'address', 'burn_block_height');
    expect(slots).toEqual([
      { slot_index: 0, address: 'bc1qfirst', burn_block_height: 800_000 },
      { slot_index: 1, address: 'bc1qfirst', burn_block_height: 800_000 },
      { slot_index: 2, address: 'bc1qthird', burn_block_height: 800_000 },
    ]);
    expect(await sys.db('dead_letters').count({ n: '*' })).toEqual([{ n: '0' }]);
  });
});
