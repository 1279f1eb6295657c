import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { loadSchemaSources, SchemaValidator } from '@bda/api';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';
import {
  deadLetterMark,
  expectNoDeadLetterSince,
  hashOf,
  postNodeEvents,
  rawTxOf,
  RECIPIENT,
  SENDER,
  transferWithNonce,
  type RawTx,
  BlockRef,
  MAX_U128,
  newBlockBody,
  NodeEventBody,
  transferEvent,
  minedTx,
} from '../support/node-event-sender';

/**
 * Small forks made of made-up node events, posted through the observer; then the api's read endpoints must show the
 * canonical chain only (reference/node-events.md): orphaned blocks, their transactions and events nowhere, a
 * transaction mined on both branches from the canonical block, orphaned transactions no canonical block includes back
 * in the mempool. Every check compares with a model of the blocks posted here (`chainTo`): the canonical chain is the
 * expected tip and its ancestors. Every 200 answer is validated against the OpenAPI document.
 */

// ---------------------------------------------------------------------------------------------------------------
// Payload makers (after unusual-payloads.test.ts)

let nextNonce = 5_000_000n;
/** A new token transfer (SENDER → RECIPIENT, 1000 µSTX) of its own txid. */
const transfer = (): RawTx => transferWithNonce(nextNonce++);

/** A block as posted: its parent, its transactions in order and its events. */
interface Block {
  ref: BlockRef;
  parent: string;
  txs: RawTx[];
  events: NodeEventBody[];
  body: Record<string, unknown>;
}

/** Every block posted (the model the reads are checked against), by index block hash. */
const posted = new Map<string, Block>();
/** Blocks the model had on the canonical chain at some point (their transactions went through the mempool). */
const everCanonical = new Set<Block>();
/** Transactions announced through `/new_mempool_tx`. */
const announced = new Set<string>();

/**
 * A Stacks 2.x `/new_block` body for a child of `parent` mining `txs` (by default one 1000 µSTX transfer event each),
 * its hashes derived from `label`.
 */
function makeBlock(label: string, parent: BlockRef, txs: RawTx[] = [], events?: NodeEventBody[]): Block {
  const blockEvents = events ?? txs.map((t, i) => transferEvent(t.txid, i));
  const { ref, body } = newBlockBody(label, parent, { txs: txs.map((t, i) => minedTx(t, i)), events: blockEvents });
  const block: Block = { ref, parent: parent.index_block_hash, txs, events: blockEvents, body };
  posted.set(ref.index_block_hash, block);
  return block;
}

/** The canonical chain the model gives for `tip`: it and its posted ancestors, newest first. */
function chainTo(tip: Block): Block[] {
  const chain: Block[] = [];
  for (let b: Block | undefined = tip; b; b = posted.get(b.parent)) chain.push(b);
  return chain;
}

// ---------------------------------------------------------------------------------------------------------------
// Answers (the parts checked)

interface BlockAnswer {
  canonical: boolean;
  height: number;
  hash: string;
  index_block_hash: string;
  parent_index_block_hash: string;
  tx_count: number;
}

interface BlockListAnswer {
  limit: number;
  offset: number;
  total: number;
  next_cursor: string | null;
  prev_cursor: string | null;
  cursor: string | null;
  results: BlockAnswer[];
}

interface EventAnswer {
  event_index: number;
  event_type: string;
  tx_id: string;
  asset?: { asset_event_type: string; sender: string; recipient: string; amount: string };
}

interface TxAnswer {
  tx_id: string;
  tx_status: string;
  canonical?: boolean;
  block_hash?: string;
  block_height?: number;
  tx_index?: number;
  event_count?: number;
  events?: EventAnswer[];
  fee_rate: string;
  token_transfer?: { recipient_address: string; amount: string };
  receipt_time?: number;
}

interface TxListAnswer {
  limit: number;
  offset: number;
  total: number;
  results: TxAnswer[];
}

interface StatusAnswer {
  chain_tip: { block_height: number; block_hash: string; index_block_hash: string; burn_block_height: number } | null;
}

/**
 * A revalidation. `fetch` adds `Cache-Control: no-cache` to a request with `If-None-Match` unless it has a
 * Cache-Control of its own, and a server must not answer 304 to no-cache: this one is `max-age=0`, as a browser's.
 */
const ifNoneMatch = (etag: string) => ({ 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });

const validator = new SchemaValidator(loadSchemaSources());

const brief = (b: BlockAnswer) => ({
  height: b.height,
  hash: b.hash,
  index_block_hash: b.index_block_hash,
  parent_index_block_hash: b.parent_index_block_hash,
  canonical: b.canonical,
  tx_count: b.tx_count,
});

const expectedBrief = (b: Block) => ({
  height: b.ref.block_height,
  hash: b.ref.block_hash,
  index_block_hash: b.ref.index_block_hash,
  parent_index_block_hash: b.parent,
  canonical: true,
  tx_count: b.txs.length,
});

// ---------------------------------------------------------------------------------------------------------------

describe('reads after forks', () => {
  let sys: TestSystem;
  let root: Block;
  /** The tip the model expects now. */
  let tip: Block;

  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer', 'api']);
    root = makeBlock('root', {
      index_block_hash: hashOf('before root'),
      block_hash: hashOf('before root block'),
      block_height: 0,
    });
    await send(['/new_block', root.body]);
    tip = root;
  });
  afterAll(() => sys?.stop());

  /** Posts the events through the observer, waits until the indexer applied them, and checks none was dead-lettered. */
  async function send(...events: Array<[path: string, body: unknown]>): Promise<void> {
    const mark = await deadLetterMark(sys);
    for (const [path, body] of events) {
      if (path === '/new_mempool_tx') for (const raw of body as string[]) announced.add(rawTxOf(raw.slice(2)).txid);
    }
    await postNodeEvents(sys, events);
    await sys.waitForCaughtUp();
    await expectNoDeadLetterSince(sys, mark);
  }

  /** GET from the api; a 200 answer must match the schema the OpenAPI document gives `template`. */
  async function apiGet<T>(
    template: string,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const res = await fetch(`${sys.apiUrl}${path}`, { headers });
    const text = await res.text();
    const body = (text === '' ? undefined : JSON.parse(text)) as T;
    if (res.status === 200) validator.validateResponse(template, 'get', 200, body);
    return { status: res.status, body, headers: res.headers };
  }

  const getTx = (txid: string, headers?: Record<string, string>) =>
    apiGet<TxAnswer>('/extended/v1/tx/{tx_id}', `/extended/v1/tx/${txid}`, headers);

  const history = (address: string, query = 'limit=50') =>
    apiGet<TxListAnswer>(
      '/extended/v1/address/{principal}/transactions',
      `/extended/v1/address/${address}/transactions?${query}`,
    );

  /**
   * Every read endpoint against the model for `expectedTip`: the chain tip, the block list and each canonical block by
   * height and by hash, 404 for each orphaned block, both addresses' histories, the mempool, and each transaction.
   */
  async function expectReadsMatch(expectedTip: Block): Promise<void> {
    const chain = chainTo(expectedTip);
    expectMessage('the model chain fits one page of blocks', () => expect(chain.length).toBeLessThanOrEqual(30));
    const onChain = new Set(chain.map((b) => b.ref.index_block_hash));
    for (const b of chain) everCanonical.add(b);
    const minedIn = new Map<string, { block: Block; txIndex: number; events: number }>();
    for (const b of chain) {
      b.txs.forEach((t, i) => {
        expectMessage(`the model mines ${t.txid} twice on one chain`, () => expect(minedIn.has(t.txid)).toBe(false));
        minedIn.set(t.txid, { block: b, txIndex: i, events: b.events.filter((e) => e.txid === t.txid).length });
      });
    }

    const status = await apiGet<StatusAnswer>('/extended', '/extended');
    expectMessage('chain_tip of /extended', () =>
      expect(status.body.chain_tip).toEqual({
        block_height: expectedTip.ref.block_height,
        block_hash: expectedTip.ref.block_hash,
        index_block_hash: expectedTip.ref.index_block_hash,
        burn_block_height: 1_000 + expectedTip.ref.block_height,
      }),
    );

    const list = await apiGet<BlockListAnswer>('/extended/v2/blocks', '/extended/v2/blocks?limit=30');
    expect(list.status).toBe(200);
    expectMessage('total of /extended/v2/blocks', () => expect(list.body.total).toBe(chain.length));
    expectMessage('/extended/v2/blocks', () => expect(list.body.results.map(brief)).toEqual(chain.map(expectedBrief)));

    for (const b of chain) {
      const byHeight = await apiGet<BlockAnswer>(
        '/extended/v2/blocks/{height_or_hash}',
        `/extended/v2/blocks/${b.ref.block_height}`,
      );
      expectMessage(`block at height ${b.ref.block_height}`, () => expect(byHeight.status).toBe(200));
      if (byHeight.status === 200)
        expectMessage(`block at height ${b.ref.block_height}`, () => expect(brief(byHeight.body)).toEqual(expectedBrief(b)));
      for (const hash of [b.ref.index_block_hash, b.ref.block_hash]) {
        const byHash = await apiGet<BlockAnswer>('/extended/v2/blocks/{height_or_hash}', `/extended/v2/blocks/${hash}`);
        expectMessage(`canonical block ${hash}`, () => expect(byHash.status).toBe(200));
        if (byHash.status === 200)
          expectMessage(`canonical block ${hash}`, () => expect(brief(byHash.body)).toEqual(expectedBrief(b)));
      }
    }
    const above = await apiGet('/extended/v2/blocks/{height_or_hash}', `/extended/v2/blocks/${expectedTip.ref.block_height + 1}`);
    expectMessage('the height above the tip', () => expect(above.status).toBe(404));
    for (const b of posted.values()) {
      if (onChain.has(b.ref.index_block_hash)) continue;
      for (const hash of [b.ref.index_block_hash, b.ref.block_hash]) {
        const orphan = await apiGet('/extended/v2/blocks/{height_or_hash}', `/extended/v2/blocks/${hash}`);
        expectMessage(`orphaned block ${hash} (height ${b.ref.block_height})`, () => expect(orphan.status).toBe(404));
      }
    }

    // Each address history: every canonical transaction once, at its canonical block, newest first.
    const expectedHistory = chain.flatMap((b) =>
      b.txs
        .map((t, i) => ({ tx_id: t.txid, block_hash: b.ref.block_hash, block_height: b.ref.block_height, tx_index: i }))
        .reverse(),
    );
    expectMessage('the model history fits one page', () => expect(expectedHistory.length).toBeLessThanOrEqual(50));
    for (const address of [SENDER, RECIPIENT]) {
      const h = await history(address);
      expect(h.status).toBe(200);
      expectMessage(`total of ${address === SENDER ? 'sender' : 'recipient'}`, () =>
        expect(h.body.total).toBe(expectedHistory.length),
      );
      expectMessage(`history of ${address === SENDER ? 'sender' : 'recipient'}`, () =>
        expect(
          h.body.results.map((r) => ({
            tx_id: r.tx_id,
            block_hash: r.block_hash,
            block_height: r.block_height,
            tx_index: r.tx_index,
          })),
        ).toEqual(expectedHistory),
      );
    }

    // The mempool: what was announced or mined on a branch that was canonical, and is not mined on the canonical one.
    // A transaction only a never-canonical block mined, and never announced, is unknown (404).
    const everything = new Set([...announced, ...[...everCanonical].flatMap((b) => b.txs.map((t) => t.txid))]);
    const pending = [...everything].filter((id) => !minedIn.has(id)).sort();
    const mempool = await apiGet<TxListAnswer>('/extended/v1/tx/mempool', '/extended/v1/tx/mempool?limit=50');
    expectMessage('total of /extended/v1/tx/mempool', () => expect(mempool.body.total).toBe(pending.length));
    expectMessage('/extended/v1/tx/mempool', () => expect(mempool.body.results.map((r) => r.tx_id).sort()).toEqual(pending));
    expect(new Set(mempool.body.results.map((r) => r.tx_status))).toEqual(new Set(pending.length ? ['pending'] : []));

    for (const b of posted.values()) {
      for (const t of b.txs) {
        if (everything.has(t.txid)) continue;
        const unknown = await getTx(t.txid);
        expectMessage(`/extended/v1/tx/${t.txid} (only in a block never canonical)`, () => expect(unknown.status).toBe(404));
      }
    }
    for (const txid of everything) {
      const tx = await getTx(txid);
      expectMessage(`/extended/v1/tx/${txid}`, () => expect(tx.status).toBe(200));
      const mined = minedIn.get(txid);
      const view = {
        tx_id: tx.body.tx_id,
        tx_status: tx.body.tx_status,
        block_hash: tx.body.block_hash,
        block_height: tx.body.block_height,
        tx_index: tx.body.tx_index,
        canonical: tx.body.canonical,
        event_count: tx.body.event_count,
        amount: tx.body.token_transfer?.amount,
      };
      expectMessage(`/extended/v1/tx/${txid}`, () =>
        expect(view).toEqual(
          mined
            ? {
                tx_id: txid,
                tx_status: 'success',
                block_hash: mined.block.ref.block_hash,
                block_height: mined.block.ref.block_height,
                tx_index: mined.txIndex,
                canonical: true,
                event_count: mined.events,
                amount: '1000',
              }
            : { tx_id: txid, tx_status: 'pending', amount: '1000' },
        ),
      );
    }
  }

  it('serves a transaction mined on both branches from the canonical block', async () => {
    const base = tip;
    const [shared, onlyA, other] = [transfer(), transfer(), transfer()];
    // On the first branch `shared` has two events (7 and 1000 µSTX) and comes second; on the second, it has one event
    // of the largest u128 amount, after `other`.
    const a4 = makeBlock(
      'c1 a4',
      base.ref,
      [onlyA, shared],
      [transferEvent(onlyA.txid, 0), transferEvent(shared.txid, 1, '7'), transferEvent(shared.txid, 2)],
    );
    await send(['/new_mempool_tx', [shared.raw, onlyA.raw, other.raw]], ['/new_block', a4.body]);
    tip = a4;
    await expectReadsMatch(tip);
    const before = await getTx(shared.txid);
    expect(before.body.events?.map((e) => [e.event_index, e.asset?.amount])).toEqual([
      [1, '7'],
      [2, '1000'],
    ]);

    const b4 = makeBlock('c1 b4', base.ref);
    const b5 = makeBlock(
      'c1 b5',
      b4.ref,
      [other, shared],
      [transferEvent(other.txid, 0), transferEvent(shared.txid, 1, MAX_U128)],
    );
    await send(['/new_block', b4.body]);
    // A tie: the first-seen block stays.
    await expectReadsMatch(tip);
    await send(['/new_block', b5.body]);
    tip = b5;
    await expectReadsMatch(tip);

    const { status, body } = await getTx(shared.txid);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      tx_status: 'success',
      canonical: true,
      block_hash: b5.ref.block_hash,
      block_height: b5.ref.block_height,
      tx_index: 1,
      event_count: 1,
    });
    expect(body.events).toEqual([
      {
        event_index: 1,
        event_type: 'stx_asset',
        tx_id: shared.txid,
        asset: expect.objectContaining({ asset_event_type: 'transfer', sender: SENDER, recipient: RECIPIENT, amount: MAX_U128 }),
      },
    ]);
    // The history of one height: the orphaned block's height now holds the canonical (empty) b4.
    for (const address of [SENDER, RECIPIENT]) {
      expect((await history(address, `height=${a4.ref.block_height}`)).body).toMatchObject({ total: 0, results: [] });
      const atB5 = (await history(address, `height=${b5.ref.block_height}`)).body;
      expect(atB5.total).toBe(2);
      expect(atB5.results.map((r) => r.tx_id)).toEqual([shared.txid, other.txid]);
    }
  });

  it('puts a transaction that only the orphaned block mined back in the mempool, until a canonical block mines it again', async () => {
    const base = tip;
    const [announcedLost, unannouncedLost, kept] = [transfer(), transfer(), transfer()];
    const a = makeBlock('c2 a', base.ref, [announcedLost, kept, unannouncedLost]);
    await send(['/new_mempool_tx', [announcedLost.raw]], ['/new_block', a.body]);
    tip = a;
    await expectReadsMatch(tip);

    const b = makeBlock('c2 b', base.ref, [kept]);
    const bChild = makeBlock('c2 b child', b.ref);
    await send(['/new_block', b.body], ['/new_block', bChild.body]);
    tip = bChild;
    await expectReadsMatch(tip);
    for (const lost of [announcedLost, unannouncedLost]) {
      const { status, body, headers } = await getTx(lost.txid);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        tx_id: lost.txid,
        tx_status: 'pending',
        token_transfer: { recipient_address: RECIPIENT, amount: '1000' },
      });
      expect(body.block_height).toBeUndefined();
      expect(body.events).toBeUndefined();
      expect(typeof body.receipt_time).toBe('number');
      // A mempool view is not cached (the route's `noStore`).
      expect(headers.get('cache-control')).toBe('no-store');
      expect(headers.get('etag')).toBeNull();
    }
    const bySender = await apiGet<TxListAnswer>(
      '/extended/v1/tx/mempool',
      `/extended/v1/tx/mempool?sender_address=${SENDER}&limit=50`,
    );
    expect(bySender.body.results.map((r) => r.tx_id)).toEqual(expect.arrayContaining([announcedLost.txid, unannouncedLost.txid]));
    expect(bySender.body.results.map((r) => r.tx_id)).not.toContain(kept.txid);

    // Mined again on the canonical branch: out of the mempool.
    const again = makeBlock('c2 again', bChild.ref, [unannouncedLost, announcedLost]);
    await send(['/new_block', again.body]);
    tip = again;
    await expectReadsMatch(tip);
    const mempool = (await apiGet<TxListAnswer>('/extended/v1/tx/mempool', '/extended/v1/tx/mempool?limit=50')).body;
    expect(mempool.results.map((r) => r.tx_id)).not.toContain(announcedLost.txid);
    expect(mempool.results.map((r) => r.tx_id)).not.toContain(unannouncedLost.txid);
  });

  it('lists only canonical blocks after a reorg, without a gap, and answers 404 for an orphaned block', async () => {
    const base = tip;
    // Three blocks replaced by four.
    const a1 = makeBlock('c3 a1', base.ref, [transfer()]);
    const a2 = makeBlock('c3 a2', a1.ref);
    const a3 = makeBlock('c3 a3', a2.ref, [transfer()]);
    await send(['/new_block', a1.body], ['/new_block', a2.body], ['/new_block', a3.body]);
    tip = a3;
    await expectReadsMatch(tip);
    const b1 = makeBlock('c3 b1', base.ref);
    const b2 = makeBlock('c3 b2', b1.ref, [transfer()]);
    const b3 = makeBlock('c3 b3', b2.ref);
    const b4 = makeBlock('c3 b4', b3.ref);
    await send(['/new_block', b1.body], ['/new_block', b2.body], ['/new_block', b3.body], ['/new_block', b4.body]);
    tip = b4;
    await expectReadsMatch(tip);

    const chain = chainTo(tip).map((b) => b.ref.index_block_hash);
    // Pages of two by offset, and by cursor (`prev_cursor` is the older page): together the whole chain, once.
    const byOffset: string[] = [];
    for (let offset = 0; offset < chain.length; offset += 2) {
      const page = await apiGet<BlockListAnswer>('/extended/v2/blocks', `/extended/v2/blocks?limit=2&offset=${offset}`);
      expect(page.body.total).toBe(chain.length);
      byOffset.push(...page.body.results.map((r) => r.index_block_hash));
    }
    expect(byOffset).toEqual(chain);
    const byCursor: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < chain.length; i++) {
      const page: { body: BlockListAnswer } = await apiGet<BlockListAnswer>(
        '/extended/v2/blocks',
        `/extended/v2/blocks?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      byCursor.push(...page.body.results.map((r) => r.index_block_hash));
      cursor = page.body.prev_cursor;
      if (!cursor) break;
    }
    expect(byCursor).toEqual(chain);

    // An orphaned block is no cursor, no block, and no `until_block`.
    for (const orphan of [a1, a2, a3]) {
      expect((await apiGet('/extended/v2/blocks', `/extended/v2/blocks?cursor=${orphan.ref.index_block_hash}`)).status).toBe(404);
      expect(
        (await apiGet('/extended/v2/blocks/{height_or_hash}', `/extended/v2/blocks/${orphan.ref.index_block_hash}`)).status,
      ).toBe(404);
      expect((await history(SENDER, `until_block=${orphan.ref.index_block_hash}`)).status).toBe(404);
    }
    const atA3Height = await apiGet<BlockAnswer>(
      '/extended/v2/blocks/{height_or_hash}',
      `/extended/v2/blocks/${a3.ref.block_height}`,
    );
    expect(atA3Height.body.index_block_hash).toBe(b3.ref.index_block_hash);
  });

  it('counts the canonical transactions of sender and recipient after a reorg and after going back to the first branch', async () => {
    const base = tip;
    const [t1, t2, t3, t4] = [transfer(), transfer(), transfer(), transfer()];
    const a1 = makeBlock('c4 a1', base.ref, [t1, t2]);
    const a2 = makeBlock('c4 a2', a1.ref, [t3]);
    await send(['/new_block', a1.body], ['/new_block', a2.body]);
    tip = a2;
    await expectReadsMatch(tip);
    const totalOnA = chainTo(tip).reduce((n, b) => n + b.txs.length, 0);

    const b1 = makeBlock('c4 b1', base.ref, [t4, t1]);
    const b2 = makeBlock('c4 b2', b1.ref);
    const b3 = makeBlock('c4 b3', b2.ref);
    await send(['/new_block', b1.body], ['/new_block', b2.body], ['/new_block', b3.body]);
    tip = b3;
    await expectReadsMatch(tip);
    for (const address of [SENDER, RECIPIENT]) expect((await history(address)).body.total).toBe(totalOnA - 3 + 2);

    // The first branch grows longer again.
    const a3 = makeBlock('c4 a3', a2.ref);
    const a4 = makeBlock('c4 a4', a3.ref);
    await send(['/new_block', a3.body], ['/new_block', a4.body]);
    tip = a4;
    await expectReadsMatch(tip);
    for (const address of [SENDER, RECIPIENT]) {
      const h = (await history(address)).body;
      expect(h.total).toBe(totalOnA);
      expect(h.results.length).toBe(totalOnA);
      expect(new Set(h.results.map((r) => r.tx_id)).size).toBe(totalOnA);
    }
    // Pages of the history add up to the total, without repeats.
    const paged: string[] = [];
    for (let offset = 0; offset < totalOnA; offset += 3) {
      paged.push(...(await history(SENDER, `limit=3&offset=${offset}`)).body.results.map((r) => r.tx_id));
    }
    expect(paged).toEqual((await history(SENDER)).body.results.map((r) => r.tx_id));
  });

  it('reads the chain after a block that arrives just before its parent replaces the tip', async () => {
    const base = tip;
    const [onlyOld, both, onlyNew] = [transfer(), transfer(), transfer()];
    const old = makeBlock('c6 old', base.ref, [onlyOld, both]);
    await send(['/new_block', old.body]);
    tip = old;
    await expectReadsMatch(tip);
    // x1 ties with `old`, x2 extends x1; x2 arrives first.
    const x1 = makeBlock('c6 x1', base.ref, [both, onlyNew]);
    const x2 = makeBlock('c6 x2', x1.ref);
    await send(['/new_block', x2.body], ['/new_block', x1.body]);
    tip = x2;
    await expectReadsMatch(tip);
    expect((await getTx(onlyOld.txid)).body.tx_status).toBe('pending');
  });

  it('changes the chain tip and its ETag when a reorg replaces the tip, and answers 304 only for the current one', async () => {
    const base = tip;
    const t = transfer();
    const a = makeBlock('c5 a', base.ref, [t]);
    await send(['/new_block', a.body]);
    tip = a;
    await expectReadsMatch(tip);

    const height = a.ref.block_height;
    const reads: Array<[template: string, path: string]> = [
      ['/extended', '/extended'],
      ['/extended/v2/blocks', '/extended/v2/blocks'],
      ['/extended/v2/blocks/{height_or_hash}', `/extended/v2/blocks/${height}`],
      ['/extended/v1/tx/{tx_id}', `/extended/v1/tx/${t.txid}`],
      ['/extended/v1/address/{principal}/transactions', `/extended/v1/address/${SENDER}/transactions`],
    ];
    const etagsOnA = new Map<string, string>();
    for (const [template, path] of reads) {
      const first = await apiGet(template, path);
      const etag = first.headers.get('etag');
      expectMessage(`ETag of ${path}`, () => expect(etag).toBeTruthy());
      etagsOnA.set(path, etag!);
      await expectMessage(`${path} unchanged`, async () =>
        expect((await apiGet(template, path, ifNoneMatch(etag!))).status).toBe(304),
      );
    }

    // A block at the tip's height, on another branch, mining `t` too: a tie, nothing any read shows changes.
    const b = makeBlock('c5 b', base.ref, [transfer(), t]);
    await send(['/new_block', b.body]);
    for (const [template, path] of reads) {
      await expectMessage(`${path} after a tie`, async () =>
        expect((await apiGet(template, path, ifNoneMatch(etagsOnA.get(path)!))).status).toBe(304),
      );
    }

    // Its child makes it canonical: the block at `height` is another, and so are the tip and every answer's version.
    const bChild = makeBlock('c5 b child', b.ref);
    await send(['/new_block', bChild.body]);
    tip = bChild;
    await expectReadsMatch(tip);
    for (const [template, path] of reads) {
      const stale = await apiGet(template, path, ifNoneMatch(etagsOnA.get(path)!));
      expectMessage(`${path} after the reorg, old ETag`, () => expect(stale.status).toBe(200));
      const etag = stale.headers.get('etag');
      expectMessage(`new ETag of ${path}`, () => expect(etag).toBeTruthy());
      expect(etag).not.toBe(etagsOnA.get(path));
      await expectMessage(`${path} after the reorg, new ETag`, async () =>
        expect((await apiGet(template, path, ifNoneMatch(etag!))).status).toBe(304),
      );
    }
    const block = await apiGet<BlockAnswer>(
      '/extended/v2/blocks/{height_or_hash}',
      `/extended/v2/blocks/${height}`,
      ifNoneMatch(etagsOnA.get(`/extended/v2/blocks/${height}`)!),
    );
    expect(block.body.index_block_hash).toBe(b.ref.index_block_hash);
    const tx = await getTx(t.txid, ifNoneMatch(etagsOnA.get(`/extended/v1/tx/${t.txid}`)!));
    expect(tx.body).toMatchObject({ block_hash: b.ref.block_hash, block_height: height, tx_index: 1 });
    const status = await apiGet<StatusAnswer>('/extended', '/extended');
    expect(status.body.chain_tip).toMatchObject({ index_block_hash: bChild.ref.index_block_hash, block_height: height + 1 });
  });
});
