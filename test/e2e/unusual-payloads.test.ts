import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';
import {
  deadLetterMark,
  expectNoDeadLetterSince,
  hashOf,
  postNodeEvents,
  RECIPIENT,
  SENDER,
  transferWithNonce,
  type RawTx,
  BlockRef,
  MAX_U128,
  newBlockBody as makeBlock,
  type MinerReward,
  NodeEventBody,
  transferEvent,
  minedTx,
} from '../support/node-event-sender';

/**
 * Schema-valid but unusual node events, posted through the observer: whatever the observer answered 200 for must be
 * applied (nothing in `dead_letters`), and the rows must be what the rules of reference/node-events.md give.
 * The blocks are made here on top of one another; their transactions are copies of one recorded token transfer
 * with another nonce (the indexer decodes, it does not check signatures), so every one has its own txid.
 */

// ---------------------------------------------------------------------------------------------------------------
// Payload makers

type Transfer = RawTx;

let nextNonce = 1_000_000n;

/** A new token transfer (SENDER → RECIPIENT, 1000 µSTX): the recorded one with the next nonce. */
const transfer = (): Transfer => transferWithNonce(nextNonce++);

interface Microblock {
  hash: string;
  sequence: number;
  parent: string;
}

/** A `/new_microblocks` body: the stream `micro` built on `parent`, each microblock carrying its transactions. */
function makeStream(parent: BlockRef, micro: Array<{ mb: Microblock; txs: Transfer[] }>): Record<string, unknown> {
  let txIndex = 0;
  return {
    parent_index_block_hash: parent.index_block_hash,
    burn_block_hash: hashOf(`stream burn ${parent.index_block_hash}`),
    burn_block_height: 1_000 + parent.block_height,
    burn_block_timestamp: 1_700_000_000 + parent.block_height,
    transactions: micro.flatMap(({ mb, txs }) => txs.map((t) => minedTx(t, txIndex++, mb))),
    events: [],
  };
}

function microblock(label: string, sequence: number, parent: string): Microblock {
  return { hash: hashOf(`microblock ${label}`), sequence, parent };
}

// ---------------------------------------------------------------------------------------------------------------
// System helpers

/** Posts the events in order through the observer (as a node does): each one answered 200. */
const post = (sys: TestSystem, ...events: Array<[path: string, body: unknown]>) => postNodeEvents(sys, events);

/** `post`, then waits until the indexer applied them all. */
async function send(sys: TestSystem, ...events: Array<[path: string, body: unknown]>): Promise<void> {
  await post(sys, ...events);
  await sys.waitForCaughtUp();
}

async function chainTip(sys: TestSystem): Promise<BlockRef & { microblock_hash: string | null; block_count: number }> {
  return (await sys
    .db('chain_tip')
    .first('index_block_hash', 'block_hash', 'block_height', 'microblock_hash', 'block_count')) as BlockRef & {
    microblock_hash: string | null;
    block_count: number;
  };
}

async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as T };
}

interface TxAnswer {
  tx_id: string;
  tx_status: string;
  block_height?: number;
  tx_index?: number;
  replaced_by_tx_id?: string | null;
}

// ---------------------------------------------------------------------------------------------------------------

describe('unusual node events on one chain', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer', 'api']);
    // The chain starts at a block whose parent is unknown (the indexer's first block).
    const root = makeBlock('root', {
      index_block_hash: hashOf('before root'),
      block_hash: hashOf('before root block'),
      block_height: 0,
    });
    await send(sys, ['/new_block', root.body]);
  });
  afterAll(() => sys?.stop());

  const mempoolRow = async (txid: string): Promise<{ status: string; replaced_by_tx_id: string | null } | undefined> =>
    (await sys.db('mempool_txs').where({ tx_id: txid }).first('status', 'replaced_by_tx_id')) as
      { status: string; replaced_by_tx_id: string | null } | undefined;

  describe('/new_mempool_tx and /drop_mempool_tx', () => {
    it('keeps one pending row for a transaction announced twice in one event and again in a later one', async () => {
      const mark = await deadLetterMark(sys);
      const [a, b] = [transfer(), transfer()];
      await send(sys, ['/new_mempool_tx', [a.raw, a.raw, b.raw, a.raw]], ['/new_mempool_tx', [b.raw, a.raw]]);
      await expectNoDeadLetterSince(sys, mark);
      const rows = await sys.db('mempool_txs').whereIn('tx_id', [a.txid, b.txid]).orderBy('tx_id').select('tx_id', 'status');
      expect(rows).toEqual([a.txid, b.txid].sort().map((tx_id) => ({ tx_id, status: 'pending' })));
      const answer = await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${a.txid}`);
      expect(answer).toMatchObject({ status: 200, body: { tx_id: a.txid, tx_status: 'pending' } });
    });

    it('counts a transaction announced after the block that mined it as mined, not pending', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const block = makeBlock('mined before announced', await chainTip(sys), {
        txs: [minedTx(t, 0)],
        events: [transferEvent(t.txid, 0)],
      });
      await send(sys, ['/new_block', block.body], ['/new_mempool_tx', [t.raw]]);
      await expectNoDeadLetterSince(sys, mark);
      expect(await mempoolRow(t.txid)).toEqual({ status: 'mined', replaced_by_tx_id: null });
      const answer = await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${t.txid}`);
      expect(answer).toMatchObject({ status: 200, body: { tx_status: 'success', block_height: block.ref.block_height } });
      const pending = await getJson<{ results: Array<{ tx_id: string }> }>(`${sys.apiUrl}/extended/v1/tx/mempool?limit=50`);
      expect(pending.body.results.map((r) => r.tx_id)).not.toContain(t.txid);
    });

    it('takes a dropped transaction back as pending, and no longer replaced, when the node announces it again', async () => {
      const mark = await deadLetterMark(sys);
      const [t, replacement] = [transfer(), transfer()];
      await send(
        sys,
        ['/new_mempool_tx', [t.raw]],
        ['/drop_mempool_tx', { dropped_txids: [t.txid], reason: 'ReplaceByFee', new_txid: replacement.txid }],
      );
      expect(await mempoolRow(t.txid)).toEqual({ status: 'dropped_replace_by_fee', replaced_by_tx_id: replacement.txid });
      await send(sys, ['/new_mempool_tx', [t.raw]]);
      await expectNoDeadLetterSince(sys, mark);
      expect(await mempoolRow(t.txid)).toEqual({ status: 'pending', replaced_by_tx_id: null });
      const answer = await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${t.txid}`);
      expect(answer.body).toMatchObject({ tx_status: 'pending', replaced_by_tx_id: null });
    });

    it('drops a pending transaction for a reason it does not know, ignoring the unknown and repeated txids beside it', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      const unknown = hashOf('never announced');
      await send(
        sys,
        ['/new_mempool_tx', [t.raw]],
        ['/drop_mempool_tx', { dropped_txids: [unknown, t.txid, unknown, t.txid], reason: 'SomeFutureReason', new_txid: null }],
      );
      await expectNoDeadLetterSince(sys, mark);
      expect(await mempoolRow(t.txid)).toEqual({ status: 'dropped_unknown', replaced_by_tx_id: null });
      expect(await mempoolRow(unknown)).toBeUndefined();
      // Stored as it came; shown by the reference API's name for a drop outside the node's named reasons.
      const answer = await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${t.txid}`);
      expect(answer.body).toMatchObject({ tx_status: 'dropped_stale_garbage_collect' });
    });
  });

  describe('/new_block', () => {
    it('indexes a block with no transactions and no events as the new tip', async () => {
      const mark = await deadLetterMark(sys);
      const block = makeBlock('empty', await chainTip(sys));
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      expect(await chainTip(sys)).toMatchObject(block.ref);
      expect(
        await sys.db('blocks').where({ index_block_hash: block.ref.index_block_hash }).first('tx_count', 'canonical'),
      ).toEqual({
        tx_count: 0,
        canonical: true,
      });
      const answer = await getJson<{ index_block_hash: string; tx_count: number; canonical: boolean }>(
        `${sys.apiUrl}/extended/v2/blocks/${block.ref.block_height}`,
      );
      expect(answer).toMatchObject({
        status: 200,
        body: { index_block_hash: block.ref.index_block_hash, tx_count: 0, canonical: true },
      });
    });

    it('indexes a block that repeats a txid and an event_index, has events of a txid it lacks, and pays matured rewards', async () => {
      const mark = await deadLetterMark(sys);
      const [a, b, stranger] = [transfer(), transfer(), transfer()];
      const rewards: MinerReward[] = [
        {
          from_index_consensus_hash: hashOf('reward consensus', 20),
          from_stacks_block_hash: hashOf('reward block'),
          recipient: SENDER,
          miner_address: SENDER,
          coinbase_amount: '1000000000',
          tx_fees_anchored: MAX_U128,
          tx_fees_streamed_confirmed: '0',
          tx_fees_streamed_produced: '7',
        },
        {
          from_index_consensus_hash: hashOf('reward consensus', 20),
          from_stacks_block_hash: hashOf('reward block'),
          recipient: SENDER,
          coinbase_amount: '1',
          tx_fees_anchored: '2',
          tx_fees_streamed_confirmed: '3',
          tx_fees_streamed_produced: '4',
        },
      ];
      const block = makeBlock('odd block', await chainTip(sys), {
        txs: [minedTx(a, 0), minedTx(a, 1), minedTx(b, 2)],
        events: [transferEvent(a.txid, 0), transferEvent(b.txid, 0), transferEvent(stranger.txid, 1)],
        rewards,
      });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const hash = block.ref.index_block_hash;
      expect(await chainTip(sys)).toMatchObject(block.ref);
      // The first of two entries with one txid is kept, at its position.
      expect(await sys.db('txs').where({ index_block_hash: hash }).orderBy('tx_index').select('tx_id', 'tx_index')).toEqual([
        { tx_id: a.txid, tx_index: 0 },
        { tx_id: b.txid, tx_index: 2 },
      ]);
      // The first event at an index is kept; an event keeps the position of its (kept) transaction, -1 when none.
      expect(
        await sys
          .db('events')
          .where({ index_block_hash: hash })
          .orderBy('event_index')
          .select('event_index', 'tx_id', 'tx_index'),
      ).toEqual([
        { event_index: 0, tx_id: a.txid, tx_index: 0 },
        { event_index: 1, tx_id: stranger.txid, tx_index: -1 },
      ]);
      expect(
        await sys
          .db('miner_rewards')
          .where({ index_block_hash: hash })
          .orderBy('reward_index')
          .select(
            'reward_index',
            'recipient',
            'miner_address',
            'coinbase_amount',
            'tx_fees_anchored',
            'tx_fees_streamed_produced',
          ),
      ).toEqual([
        {
          reward_index: 0,
          recipient: SENDER,
          miner_address: SENDER,
          coinbase_amount: '1000000000',
          tx_fees_anchored: MAX_U128,
          tx_fees_streamed_produced: '7',
        },
        {
          reward_index: 1,
          recipient: SENDER,
          miner_address: null,
          coinbase_amount: '1',
          tx_fees_anchored: '2',
          tx_fees_streamed_produced: '4',
        },
      ]);
      // History: sender and recipient of each kept transaction, once each; nothing for the stranger's event.
      const history = await sys.db('address_txs').where({ index_block_hash: hash }).select('address', 'tx_id');
      const keys = history.map((r: { address: string; tx_id: string }) => `${r.address} ${r.tx_id}`).sort();
      expect(keys).toEqual(
        [`${RECIPIENT} ${a.txid}`, `${RECIPIENT} ${b.txid}`, `${SENDER} ${a.txid}`, `${SENDER} ${b.txid}`].sort(),
      );
      const answer = await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${a.txid}`);
      expect(answer.body).toMatchObject({ tx_status: 'success', tx_index: 0 });
    });

    it('indexes a block of 3,000 transactions and 12,000 events in one piece', async () => {
      const mark = await deadLetterMark(sys);
      const txs = Array.from({ length: 3_000 }, () => transfer());
      const events = txs.flatMap((t, i): NodeEventBody[] => [
        transferEvent(t.txid, 4 * i),
        {
          txid: t.txid,
          event_index: 4 * i + 1,
          committed: true,
          type: 'ft_mint_event',
          ft_mint_event: { asset_identifier: `${SENDER}.token::t`, recipient: `${SENDER}.holder-${i}`, amount: MAX_U128 },
        },
        {
          txid: t.txid,
          event_index: 4 * i + 2,
          committed: true,
          type: 'contract_event',
          contract_event: {
            contract_identifier: `${SENDER}.token`,
            topic: 'print',
            raw_value: '0x0100000000000000000000000000000001',
          },
        },
        {
          txid: t.txid,
          event_index: 4 * i + 3,
          committed: false,
          type: 'stx_burn_event',
          stx_burn_event: { sender: SENDER, amount: '1' },
        },
      ]);
      const block = makeBlock('large', await chainTip(sys), { txs: txs.map((t, i) => minedTx(t, i)), events });
      await send(sys, ['/new_block', block.body]);
      await expectNoDeadLetterSince(sys, mark);
      const hash = block.ref.index_block_hash;
      expect(await chainTip(sys)).toMatchObject(block.ref);
      expect(await sys.db('txs').where({ index_block_hash: hash, canonical: true }).count({ n: '*' })).toEqual([{ n: '3000' }]);
      expect(await sys.db('events').where({ index_block_hash: hash, canonical: true }).count({ n: '*' })).toEqual([
        { n: '12000' },
      ]);
      // Sender and recipient of every transaction; a token's holder is no party in the history (ADR 0016).
      expect(await sys.db('address_txs').where({ index_block_hash: hash }).count({ n: '*' })).toEqual([{ n: '6000' }]);
      expect(
        await sys
          .db('address_txs')
          .where({ address: `${SENDER}.holder-2999` })
          .count({ n: '*' }),
      ).toEqual([{ n: '0' }]);
      const counts: Array<{ address: string; tx_count: number; rows: string }> = await sys
        .db('address_tx_counts as c')
        .whereIn('c.address', [SENDER, RECIPIENT])
        .select(
          'c.address',
          'c.tx_count',
          sys.db.raw('(SELECT count(*) FROM address_txs a WHERE a.address = c.address) AS rows'),
        );
      expect(counts).toHaveLength(2);
      for (const c of counts) expectMessage(c.address, () => expect(String(c.tx_count)).toBe(c.rows));
    });
  });

  describe('/new_microblocks', () => {
    it('ends the same whether a stream arrives before or after its parent block, and keeps a repeated stream once', async () => {
      const mark = await deadLetterMark(sys);
      const parent = makeBlock('stream parent', await chainTip(sys));
      const m0 = microblock('early 0', 0, parent.ref.block_hash);
      const m1 = microblock('early 1', 1, m0.hash);
      const stream = makeStream(parent.ref, [
        { mb: m0, txs: [transfer()] },
        { mb: m1, txs: [transfer(), transfer()] },
      ]);
      // The stream first (twice), then the block it builds on.
      await send(sys, ['/new_microblocks', stream], ['/new_microblocks', stream], ['/new_block', parent.body]);
      await expectNoDeadLetterSince(sys, mark);
      expect(
        await sys.db('microblock_txs').where({ parent_index_block_hash: parent.ref.index_block_hash }).count({ n: '*' }),
      ).toEqual([{ n: '3' }]);
      // As when the stream comes after its parent: unconfirmed, canonical with its canonical parent, shown on the tip.
      expect(
        await sys
          .db('microblocks')
          .where({ parent_index_block_hash: parent.ref.index_block_hash })
          .orderBy('microblock_sequence')
          .select('microblock_hash', 'microblock_canonical', 'canonical', 'index_block_hash', 'tx_count'),
      ).toEqual([
        { microblock_hash: m0.hash, microblock_canonical: true, canonical: true, index_block_hash: null, tx_count: 1 },
        { microblock_hash: m1.hash, microblock_canonical: true, canonical: true, index_block_hash: null, tx_count: 2 },
      ]);
      expect(await chainTip(sys)).toMatchObject({ ...parent.ref, microblock_hash: m1.hash });
      const status = await getJson<{ chain_tip: { microblock_hash?: string; microblock_sequence?: number } }>(
        `${sys.apiUrl}/extended/v1/status`,
      );
      expect(status.body.chain_tip).toMatchObject({ microblock_hash: m1.hash, microblock_sequence: 1 });
    });

    it('orphans the competing stream from the same parent that the next block does not confirm', async () => {
      const mark = await deadLetterMark(sys);
      const parent = makeBlock('forked stream parent', await chainTip(sys));
      const x0 = microblock('x 0', 0, parent.ref.block_hash);
      const x1 = microblock('x 1', 1, x0.hash);
      const y0 = microblock('y 0', 0, parent.ref.block_hash);
      const [tx0, tx1, ty0] = [transfer(), transfer(), transfer()];
      // The node repeats the confirmed microblock transactions in the confirming block.
      const child = makeBlock('confirms x', parent.ref, { confirms: x1, txs: [minedTx(tx0, 0, x0), minedTx(tx1, 1, x1)] });
      await send(
        sys,
        ['/new_block', parent.body],
        [
          '/new_microblocks',
          makeStream(parent.ref, [
            { mb: x0, txs: [tx0] },
            { mb: x1, txs: [tx1] },
          ]),
        ],
        ['/new_microblocks', makeStream(parent.ref, [{ mb: y0, txs: [ty0] }])],
        ['/new_block', child.body],
      );
      await expectNoDeadLetterSince(sys, mark);
      expect(await chainTip(sys)).toMatchObject({ ...child.ref, microblock_hash: null });
      const rows = await sys
        .db('microblocks')
        .where({ parent_index_block_hash: parent.ref.index_block_hash })
        .orderBy('microblock_hash')
        .select('microblock_hash', 'microblock_canonical', 'canonical', 'index_block_hash');
      expect(rows).toEqual(
        [
          { microblock_hash: x0.hash, microblock_canonical: true, canonical: true, index_block_hash: child.ref.index_block_hash },
          { microblock_hash: x1.hash, microblock_canonical: true, canonical: true, index_block_hash: child.ref.index_block_hash },
          { microblock_hash: y0.hash, microblock_canonical: false, canonical: false, index_block_hash: null },
        ].sort((p, q) => p.microblock_hash.localeCompare(q.microblock_hash)),
      );
      expect(
        await sys.db('txs').where({ canonical: true }).whereIn('tx_id', [tx0.txid, tx1.txid, ty0.txid]).pluck('tx_id'),
      ).toEqual(expect.arrayContaining([tx0.txid, tx1.txid]));
      expect(await sys.db('txs').where({ tx_id: ty0.txid }).count({ n: '*' })).toEqual([{ n: '0' }]);
    });

    it("gives a stream that arrives after the block confirming part of it that block's decision", async () => {
      const mark = await deadLetterMark(sys);
      const parent = makeBlock('late stream parent', await chainTip(sys));
      const z0 = microblock('z 0', 0, parent.ref.block_hash);
      const z1 = microblock('z 1', 1, z0.hash);
      const [tz0, tz1] = [transfer(), transfer()];
      const child = makeBlock('confirms z0', parent.ref, { confirms: z0, txs: [minedTx(tz0, 0, z0)] });
      const stream = makeStream(parent.ref, [
        { mb: z0, txs: [tz0] },
        { mb: z1, txs: [tz1] },
      ]);
      await send(
        sys,
        ['/new_block', parent.body],
        ['/new_block', child.body],
        ['/new_microblocks', stream],
        ['/new_microblocks', stream],
      );
      await expectNoDeadLetterSince(sys, mark);
      expect(
        await sys
          .db('microblocks')
          .where({ parent_index_block_hash: parent.ref.index_block_hash })
          .orderBy('microblock_sequence')
          .select('microblock_hash', 'microblock_canonical', 'canonical', 'index_block_hash'),
      ).toEqual([
        { microblock_hash: z0.hash, microblock_canonical: true, canonical: true, index_block_hash: child.ref.index_block_hash },
        { microblock_hash: z1.hash, microblock_canonical: false, canonical: false, index_block_hash: null },
      ]);
      expect(await chainTip(sys)).toMatchObject({ ...child.ref, microblock_hash: null });
    });
  });

  describe('events larger than a list of bind parameters', () => {
    it('stores a stream of 8,000 microblock transactions and 9,000 attachments in one event each', async () => {
      const mark = await deadLetterMark(sys);
      const parent = makeBlock('big stream parent', await chainTip(sys));
      const m0 = microblock('big stream 0', 0, parent.ref.block_hash);
      await send(sys, ['/new_block', parent.body]);
      // Nine columns a row: 8,000 rows as one VALUES list would need 72,000 bind parameters (65,535 at most).
      await send(sys, ['/new_microblocks', makeStream(parent.ref, [{ mb: m0, txs: Array.from({ length: 8_000 }, transfer) }])]);
      const txId = hashOf('many attachments tx');
      const attachments = Array.from({ length: 9_000 }, (_, i) => ({
        attachment_index: i,
        index_block_hash: parent.ref.index_block_hash,
        block_height: String(parent.ref.block_height),
        content_hash: hashOf(`many attachments ${i}`, 20),
        contract_id: `${SENDER}.names`,
        metadata: '0x0c00000000',
        tx_id: txId,
        content: '0x',
      }));
      await send(sys, ['/attachments/new', attachments]);
      await expectNoDeadLetterSince(sys, mark);
      expect(
        await sys.db('microblock_txs').where({ parent_index_block_hash: parent.ref.index_block_hash }).count({ n: '*' }),
      ).toEqual([{ n: '8000' }]);
      expect(await sys.db('microblocks').where({ microblock_hash: m0.hash }).select('tx_count', 'canonical')).toEqual([
        { tx_count: 8000, canonical: true },
      ]);
      expect(await sys.db('attachments').where({ tx_id: txId }).count({ n: '*' })).toEqual([{ n: '9000' }]);
    });
  });

  describe('/attachments/new', () => {
    it('keeps each attachment once when announced twice, before its block, for a contract nobody deployed', async () => {
      const mark = await deadLetterMark(sys);
      const txId = hashOf('attachment tx');
      const attachment = (index: number, content: string) => ({
        attachment_index: index,
        index_block_hash: hashOf('attachment block'),
        block_height: '123456',
        content_hash: hashOf(`content ${content}`, 20),
        contract_id: `${SENDER}.no-such-contract`,
        metadata: '0x0c00000000',
        tx_id: txId,
        content: `0x${Buffer.from(content).toString('hex')}`,
      });
      const [first, second] = [attachment(0, '$ORIGIN example.id\n'), attachment(1, '')];
      await send(sys, ['/attachments/new', [first, first, second]], ['/attachments/new', [second, first]]);
      await expectNoDeadLetterSince(sys, mark);
      const rows: Array<{ attachment_index: number; block_height: number; content: Buffer }> = await sys
        .db('attachments')
        .where({ tx_id: txId })
        .orderBy('attachment_index')
        .select('attachment_index', 'block_height', 'content');
      expect(rows.map((r) => [r.attachment_index, r.block_height, r.content.toString()])).toEqual([
        [0, 123456, '$ORIGIN example.id\n'],
        [1, 123456, ''],
      ]);
    });
  });

  describe('/new_burn_block', () => {
    it('moves the canonical burn block at each of three heights to a longer fork, and keeps it there when an old block comes again', async () => {
      const mark = await deadLetterMark(sys);
      const H = 900_000;
      const hashAt = (branch: string, h: number) => hashOf(`burn ${branch} ${h}`);
      const burnBlock = (branch: string, h: number, extra: Record<string, unknown> = {}) => ({
        burn_block_hash: hashAt(branch, h),
        burn_block_height: h,
        burn_amount: 0,
        consensus_hash: hashOf(`consensus ${branch} ${h}`, 20),
        parent_burn_block_hash: h === H ? hashAt('common', H - 1) : hashAt(branch, h - 1),
        reward_recipients: [],
        reward_slot_holders: [],
        ...extra,
      });
      const paid = burnBlock('a', H, {
        burn_amount: 20_000,
        reward_recipients: [
          { recipient: 'bc1qsame', amt: 5 },
          { recipient: 'bc1qsame', amt: 5 },
          { recipient: 'bc1qother', amt: MAX_U128 },
        ],
        reward_slot_holders: ['bc1qsame', 'bc1qsame', 'bc1qother', 'bc1qsame'],
      });
      await send(
        sys,
        ['/new_burn_block', burnBlock('common', H - 1)],
        ['/new_burn_block', paid],
        ['/new_burn_block', burnBlock('a', H + 1)],
        ['/new_burn_block', burnBlock('a', H + 2)],
        // The fork replaces the three, and goes one further.
        ['/new_burn_block', burnBlock('b', H)],
        ['/new_burn_block', burnBlock('b', H + 1)],
        ['/new_burn_block', burnBlock('b', H + 2)],
        ['/new_burn_block', burnBlock('b', H + 3)],
        // A node re-sending history.
        ['/new_burn_block', burnBlock('a', H + 1)],
        ['/new_burn_block', paid],
      );
      await expectNoDeadLetterSince(sys, mark);
      const canonical = await sys
        .db('burn_blocks')
        .where('burn_block_height', '>=', H - 1)
        .andWhere({ canonical: true })
        .orderBy('burn_block_height')
        .pluck('burn_block_hash');
      expect(canonical).toEqual([
        hashAt('common', H - 1),
        hashAt('b', H),
        hashAt('b', H + 1),
        hashAt('b', H + 2),
        hashAt('b', H + 3),
      ]);
      expect(
        await sys
          .db('burn_blocks')
          .where('burn_block_height', '>=', H - 1)
          .count({ n: '*' }),
      ).toEqual([{ n: '8' }]);
      expect(
        await sys
          .db('burn_block_rewards')
          .where({ burn_block_hash: paid.burn_block_hash })
          .orderBy('reward_index')
          .select('reward_index', 'recipient', 'amount'),
      ).toEqual([
        { reward_index: 0, recipient: 'bc1qsame', amount: '5' },
        { reward_index: 1, recipient: 'bc1qsame', amount: '5' },
        { reward_index: 2, recipient: 'bc1qother', amount: MAX_U128 },
      ]);
      expect(
        await sys
          .db('burn_block_slot_holders')
          .where({ burn_block_hash: paid.burn_block_hash })
          .orderBy('slot_index')
          .pluck('address'),
      ).toEqual(['bc1qsame', 'bc1qsame', 'bc1qother', 'bc1qsame']);
    });
  });

  // Last on this system: when the indexer cannot get past an event, nothing after it is applied either.
  describe('a very large /drop_mempool_tx', () => {
    it('applies one drop of 70,000 txids (a garbage collection of a large mempool) and goes on with the stream', async () => {
      const mark = await deadLetterMark(sys);
      const t = transfer();
      await send(sys, ['/new_mempool_tx', [t.raw]]);
      const ids = Array.from({ length: 69_999 }, (_, i) => hashOf(`collected ${i}`));
      ids.splice(35_000, 0, t.txid);
      const after = makeBlock('after the large drop', await chainTip(sys));
      await post(
        sys,
        ['/drop_mempool_tx', { dropped_txids: ids, reason: 'StaleGarbageCollect', new_txid: null }],
        ['/new_block', after.body],
      );
      // Not the default two minutes: a stalled indexer is the failure this case looks for.
      await sys.waitForCaughtUp(30_000);
      await expectNoDeadLetterSince(sys, mark);
      expect(await mempoolRow(t.txid)).toEqual({ status: 'dropped_stale_garbage_collect', replaced_by_tx_id: null });
      expect(await chainTip(sys)).toMatchObject(after.ref);
    }, 60_000);
  });
});

describe('unusual fork choice', () => {
  let sys: TestSystem;
  let root: BlockRef;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer', 'api']);
    const first = makeBlock('fork root', {
      index_block_hash: hashOf('before fork root'),
      block_hash: hashOf('before fork root block'),
      block_height: 0,
    });
    await send(sys, ['/new_block', first.body]);
    root = first.ref;
  });
  afterAll(() => sys?.stop());

  const canonicalChain = async (): Promise<string[]> =>
    sys.db('blocks').where({ canonical: true }).orderBy('block_height').pluck('index_block_hash');

  /** Every canonical block but the first has its parent canonical, and the tip is the highest of them. */
  const expectConsistentChain = async () => {
    const rows: Array<{ index_block_hash: string; parent_index_block_hash: string; block_height: number }> = await sys
      .db('blocks')
      .where({ canonical: true })
      .orderBy('block_height')
      .select('index_block_hash', 'parent_index_block_hash', 'block_height');
    for (let i = 1; i < rows.length; i++) {
      expectMessage(`parent of canonical block at height ${rows[i]!.block_height}`, () =>
        expect(rows[i]!.parent_index_block_hash).toBe(rows[i - 1]!.index_block_hash),
      );
    }
    const tip = await chainTip(sys);
    expect(tip).toMatchObject({ index_block_hash: rows[rows.length - 1]!.index_block_hash, block_count: rows.length });
  };

  const history = async (address: string) =>
    (
      await getJson<{ total: number; results: Array<{ tx_id: string }> }>(
        `${sys.apiUrl}/extended/v1/address/${address}/transactions?limit=50`,
      )
    ).body;

  it('keeps the first of two blocks at the same height canonical until a child extends the other, and goes back when the first branch grows longer', async () => {
    const mark = await deadLetterMark(sys);
    // `shared` is mined on both branches, `onlyA` only on the first.
    const [shared, onlyA] = [transfer(), transfer()];
    const a2 = makeBlock('a2', root, {
      txs: [minedTx(shared, 0), minedTx(onlyA, 1)],
      events: [transferEvent(shared.txid, 0), transferEvent(onlyA.txid, 1)],
    });
    const b2 = makeBlock('b2', root, { txs: [minedTx(shared, 0)], events: [transferEvent(shared.txid, 0)] });
    await send(sys, ['/new_mempool_tx', [shared.raw, onlyA.raw]], ['/new_block', a2.body], ['/new_block', b2.body]);
    await expectNoDeadLetterSince(sys, mark);
    expect(await canonicalChain()).toEqual([root.index_block_hash, a2.ref.index_block_hash]);
    expect(await mempoolStatus(sys, onlyA.txid)).toBe('mined');

    // A child of the second block: its branch is now the longer one.
    const b3 = makeBlock('b3', b2.ref);
    await send(sys, ['/new_block', b3.body]);
    await expectNoDeadLetterSince(sys, mark);
    expect(await canonicalChain()).toEqual([root.index_block_hash, b2.ref.index_block_hash, b3.ref.index_block_hash]);
    await expectConsistentChain();
    expect(await mempoolStatus(sys, onlyA.txid)).toBe('pending');
    expect((await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${onlyA.txid}`)).body).toMatchObject({ tx_status: 'pending' });
    expect((await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${shared.txid}`)).body).toMatchObject({
      tx_status: 'success',
      block_height: 2,
    });
    expect(await history(SENDER)).toMatchObject({ total: 1, results: [{ tx_id: shared.txid }] });
    expect(
      await sys.db('events').where({ index_block_hash: a2.ref.index_block_hash, canonical: true }).count({ n: '*' }),
    ).toEqual([{ n: '0' }]);

    // A child of the first block ties; one more makes the first branch the longer again.
    const a3 = makeBlock('a3', a2.ref);
    const a4 = makeBlock('a4', a3.ref);
    await send(sys, ['/new_block', a3.body]);
    expect((await chainTip(sys)).index_block_hash).toBe(b3.ref.index_block_hash);
    await send(sys, ['/new_block', a4.body]);
    await expectNoDeadLetterSince(sys, mark);
    expect(await canonicalChain()).toEqual([
      root.index_block_hash,
      a2.ref.index_block_hash,
      a3.ref.index_block_hash,
      a4.ref.index_block_hash,
    ]);
    await expectConsistentChain();
    expect(await mempoolStatus(sys, onlyA.txid)).toBe('mined');
    expect((await getJson<TxAnswer>(`${sys.apiUrl}/extended/v1/tx/${onlyA.txid}`)).body).toMatchObject({
      tx_status: 'success',
      block_height: 2,
    });
    const senderHistory = await history(SENDER);
    expect(senderHistory.total).toBe(2);
    expect(senderHistory.results.map((r) => r.tx_id).sort()).toEqual([shared.txid, onlyA.txid].sort());
    expect(
      await sys.db('events').where({ index_block_hash: b2.ref.index_block_hash, canonical: true }).count({ n: '*' }),
    ).toEqual([{ n: '0' }]);
  });

  it('places a block that arrives just before its parent, one above the tip, on its own branch once the parent arrives', async () => {
    const mark = await deadLetterMark(sys);
    const tip = await chainTip(sys);
    const { parent_index_block_hash: tipParent } = (await sys
      .db('blocks')
      .where({ index_block_hash: tip.index_block_hash })
      .first('parent_index_block_hash')) as { parent_index_block_hash: string };
    const forkBase = (await sys
      .db('blocks')
      .where({ index_block_hash: tipParent })
      .first('index_block_hash', 'block_hash', 'block_height')) as BlockRef;
    // x1 ties with the tip, x2 extends x1; x2 arrives first.
    const x1 = makeBlock('x1', forkBase);
    const x2 = makeBlock('x2', x1.ref);
    await send(sys, ['/new_block', x2.body], ['/new_block', x1.body]);
    await expectNoDeadLetterSince(sys, mark);
    const chain = await canonicalChain();
    expect(chain.slice(-2)).toEqual([x1.ref.index_block_hash, x2.ref.index_block_hash]);
    expect(chain).not.toContain(tip.index_block_hash);
    await expectConsistentChain();
  });
});

async function mempoolStatus(sys: TestSystem, txid: string): Promise<string | undefined> {
  const row = (await sys.db('mempool_txs').where({ tx_id: txid }).first('status')) as { status: string } | undefined;
  return row?.status;
}
