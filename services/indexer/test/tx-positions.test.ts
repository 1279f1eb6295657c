import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getAddressFromPrivateKey, makeContractCall, makeSTXTokenTransfer } from '@stacks/transactions';
import { createLogger } from '@bda/common';
import { ADDRESS_TXS_LIST, createDb, migrateLatest, numberedListFillSql, principalEventRowsSql } from '@bda/db';
import { createTestDatabase, testInfra, BEFORE_GENESIS, labelHash, newBlockEvent, type BlockRef } from '@bda/test-support';
import { stacksEventHandler } from '../src/stacks/stacks-event-handler';

/**
 * `chain_tx_positions` (migration 080) and `principal_events` (migration 088) as the indexer's own handler keeps them
 * on a real PostgreSQL: a chain of blocks with a known number of transfers and contract calls each, then a fork that
 * replaces its top with blocks of other sizes (every position above the fork moves), then the first branch coming
 * back. Each transfer emits an STX transfer event from the sender to the called contract, each call a log of that
 * contract, so the contract's event list interleaves two type groups. Expectations are written by hand.
 */

const KEY = `${'01'.repeat(32)}01`;
const SENDER = getAddressFromPrivateKey(KEY, 'testnet');
const CONTRACT = 'ST000000000000000000002AMW42H.pox-4';
let nonce = 0n;

async function transfer(): Promise<{ txid: string; raw: string; events: Array<Record<string, unknown>> }> {
  const tx = await makeSTXTokenTransfer({
    recipient: 'ST000000000000000000002AMW42H',
    amount: 1n,
    senderKey: KEY,
    network: 'testnet',
    fee: 180n,
    nonce: nonce++,
  });
  const event = { type: 'stx_transfer_event', stx_transfer_event: { sender: SENDER, recipient: CONTRACT, amount: '1' } };
  return { txid: `0x${tx.txid()}`, raw: `0x${tx.serialize()}`, events: [event] };
}

async function call(): Promise<{ txid: string; raw: string; events: Array<Record<string, unknown>> }> {
  const tx = await makeContractCall({
    contractAddress: 'ST000000000000000000002AMW42H',
    contractName: 'pox-4',
    functionName: 'get-info',
    functionArgs: [],
    senderKey: KEY,
    network: 'testnet',
    fee: 180n,
    nonce: nonce++,
    validateWithAbi: false,
    postConditionMode: 'allow',
  });
  const log = { type: 'contract_event', contract_event: { contract_identifier: CONTRACT, topic: 'print', raw_value: '0x0703' } };
  return { txid: `0x${tx.txid()}`, raw: `0x${tx.serialize()}`, events: [log] };
}

type Ref = BlockRef;

/** A block of `transfers` STX transfers then `calls` contract calls. */
async function newBlock(label: string, parent: Ref, transfers: number, calls: number) {
  const txs = [];
  for (let i = 0; i < transfers; i++) txs.push(await transfer());
  for (let i = 0; i < calls; i++) txs.push(await call());
  return newBlockEvent(label, parent, txs);
}

/** The rows expected for blocks of (height, transfers, calls), lowest first: every type, then per type. */
function expected(blocks: Array<[number, number, number]>): string[] {
  const out: string[] = [];
  for (const [type, pick] of [
    ['', (t: number, c: number) => t + c],
    ['contract_call', (_t: number, c: number) => c],
    ['token_transfer', (t: number) => t],
  ] as const) {
    let before = 0;
    for (const [h, t, c] of blocks) {
      const n = pick(t, c);
      if (n === 0) continue;
      out.push(`${type}/${h}: ${before}+${n}`);
      before += n;
    }
  }
  return out;
}

/**
 * The `principal_events` rows expected for blocks of (height, transfers, calls), lowest first: the sender's transfers
 * (group 2, stx_asset), and the contract's transfers received and logs (group 0), numbered across both and per group.
 */
function expectedEvents(blocks: Array<[number, number, number]>): string[] {
  const out: string[] = [];
  for (const principal of [SENDER, CONTRACT].sort()) {
    let seq = 0;
    const groupSeq = new Map<number, number>();
    for (const [h, t, c] of blocks) {
      for (let i = 0; i < t + c; i++) {
        const group = i < t ? 2 : 0;
        if (group === 0 && principal === SENDER) continue;
        groupSeq.set(group, (groupSeq.get(group) ?? 0) + 1);
        out.push(`${principal}/${h}/${i}: ${++seq} ${group}:${groupSeq.get(group)}`);
      }
    }
  }
  return out;
}

describe('chain_tx_positions, principal_events and microblock_order through a reorg', () => {
  let db: Knex;
  const handler = stacksEventHandler(createLogger('indexer', 'silent'));
  async function send(body: unknown, path = '/new_block'): Promise<void> {
    await db.transaction(async (trx) => {
      handler.onBatchStart();
      await handler.handle(trx, { path, received_at: '2024-01-01T00:00:00.000Z', body });
      await handler.beforeCommit(trx);
    });
  }
  const positions = async () =>
    (
      (await db.raw(
        `SELECT type_id, block_height, txs_before, tx_count FROM chain_tx_positions ORDER BY type_id, block_height`,
      )) as { rows: Array<{ type_id: string; block_height: number; txs_before: string; tx_count: number }> }
    ).rows.map((r) => `${r.type_id}/${r.block_height}: ${r.txs_before}+${r.tx_count}`);
  const principalEvents = async () =>
    (
      (await db.raw(
        `SELECT principal, block_height, event_index, seq, type_group, group_seq FROM principal_events
         ORDER BY principal, block_height, event_index`,
      )) as {
        rows: Array<{
          principal: string;
          block_height: number;
          event_index: number;
          seq: number;
          type_group: number;
          group_seq: number;
        }>;
      }
    ).rows.map((r) => `${r.principal}/${r.block_height}/${r.event_index}: ${r.seq} ${r.type_group}:${r.group_seq}`);

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'tx_positions'), maxConnections: 2 });
    await migrateLatest(db);
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('moves every position and every principal event number above the fork, and back when the first branch returns', async () => {
    const root = await newBlock('root', BEFORE_GENESIS, 2, 0);
    const a1 = await newBlock('a1', root.ref, 3, 1);
    const a2 = await newBlock('a2', a1.ref, 0, 2);
    for (const b of [root, a1, a2]) await send(b.body);
    expect(await positions()).toEqual(
      expected([
        [0, 2, 0],
        [1, 3, 1],
        [2, 0, 2],
      ]),
    );
    expect(await principalEvents()).toEqual(
      expectedEvents([
        [0, 2, 0],
        [1, 3, 1],
        [2, 0, 2],
      ]),
    );

    // A longer branch from the root: heights 1 and 2 now hold other blocks, 3 is new.
    const b1 = await newBlock('b1', root.ref, 1, 0);
    const b2 = await newBlock('b2', b1.ref, 2, 3);
    const b3 = await newBlock('b3', b2.ref, 1, 1);
    for (const b of [b1, b2, b3]) await send(b.body);
    expect(await positions()).toEqual(
      expected([
        [0, 2, 0],
        [1, 1, 0],
        [2, 2, 3],
        [3, 1, 1],
      ]),
    );
    expect(await principalEvents()).toEqual(
      expectedEvents([
        [0, 2, 0],
        [1, 1, 0],
        [2, 2, 3],
        [3, 1, 1],
      ]),
    );

    // The first branch grows past it and comes back.
    const a3 = await newBlock('a3', a2.ref, 4, 0);
    const a4 = await newBlock('a4', a3.ref, 1, 0);
    for (const b of [a3, a4]) await send(b.body);
    expect(await positions()).toEqual(
      expected([
        [0, 2, 0],
        [1, 3, 1],
        [2, 0, 2],
        [3, 4, 0],
        [4, 1, 0],
      ]),
    );
    expect(await principalEvents()).toEqual(
      expectedEvents([
        [0, 2, 0],
        [1, 3, 1],
        [2, 0, 2],
        [3, 4, 0],
        [4, 1, 0],
      ]),
    );

    // What migration 080 computes from scratch over the canonical rows.
    const scratch = await db.raw(
      `SELECT g.type_id, g.block_height, (sum(g.n) OVER (PARTITION BY g.type_id ORDER BY g.block_height) - g.n)::text AS before, g.n::int AS n
       FROM (SELECT coalesce(type_id, '') AS type_id, block_height, count(*) AS n FROM txs WHERE canonical
             GROUP BY GROUPING SETS ((block_height, type_id), (block_height))) g ORDER BY g.type_id, g.block_height`,
    );
    expect(await positions()).toEqual(
      (scratch.rows as Array<{ type_id: string; block_height: number; before: string; n: number }>).map(
        (r) => `${r.type_id}/${r.block_height}: ${r.before}+${r.n}`,
      ),
    );
    // What migration 088 computes from scratch over the canonical events.
    const scratchEvents = await db.raw(
      `SELECT r.principal, r.block_height, r.event_index, r.type_group,
              row_number() OVER (PARTITION BY r.principal ORDER BY r.block_height, r.event_index)::int AS seq,
              row_number() OVER (PARTITION BY r.principal, r.type_group ORDER BY r.block_height, r.event_index)::int AS group_seq
       FROM (${principalEventRowsSql('true')}) r ORDER BY r.principal, r.block_height, r.event_index`,
    );
    expect(await principalEvents()).toEqual(
      (
        scratchEvents.rows as Array<{
          principal: string;
          block_height: number;
          event_index: number;
          seq: number;
          type_group: number;
          group_seq: number;
        }>
      ).map((r) => `${r.principal}/${r.block_height}/${r.event_index}: ${r.seq} ${r.type_group}:${r.group_seq}`),
    );
  });
  /**
   * `microblock_order` (migration 089) as the triggers keep it: a stream on the tip, its block confirming part of it
   * (the rest orphaned), a stream on that block, a fork that takes both blocks out of the canonical chain, and their
   * branch coming back, its next block confirming none of the second stream. Rows as `height/sequence label`, newest
   * first; expectations written by hand, and each state equal to the list's definition (the order the api sorted by).
   */
  it('numbers the canonical microblocks through a stream, its orphaned part, a fork and back', async () => {
    const tipRow = async (height: number): Promise<Ref> =>
      (await db('blocks')
        .where({ canonical: true, block_height: height })
        .first('index_block_hash', 'block_hash', 'block_height')) as Ref;
    const a4 = await tipRow(4);
    const a3 = await tipRow(3);
    const labels = new Map<string, string>();
    const stream = async (parent: Ref, names: string[]) => {
      let previous = parent.block_hash;
      const transactions = [];
      for (const [i, name] of names.entries()) {
        const hash = labelHash(`microblock ${name}`);
        labels.set(hash, name);
        const tx = await transfer();
        transactions.push({
          txid: tx.txid,
          raw_tx: tx.raw,
          status: 'success',
          raw_result: '0x0703',
          tx_index: i,
          microblock_hash: hash,
          microblock_sequence: i,
          microblock_parent_hash: previous,
          contract_abi: null,
          execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
        });
        previous = hash;
      }
      await send({ parent_index_block_hash: parent.index_block_hash, transactions, events: [] }, '/new_microblocks');
    };
    const listed = async () => {
      const rows = (await db.raw(
        `SELECT o.seq, o.sort_height, o.microblock_sequence, o.microblock_hash FROM microblock_order o ORDER BY o.seq DESC`,
      )) as { rows: Array<{ seq: number; sort_height: number; microblock_sequence: number; microblock_hash: string }> };
      // Dense from 1, oldest first.
      expect(rows.rows.map((r) => r.seq)).toEqual(rows.rows.map((_, i) => rows.rows.length - i));
      const definition = (await db.raw(
        `SELECT x.microblock_hash FROM microblocks x
         LEFT JOIN blocks p ON p.index_block_hash = x.parent_index_block_hash
         LEFT JOIN blocks c ON c.index_block_hash = x.index_block_hash
         WHERE x.canonical AND x.microblock_canonical
         ORDER BY coalesce(p.block_height, c.block_height - 1) DESC NULLS LAST, x.microblock_sequence DESC`,
      )) as { rows: Array<{ microblock_hash: string }> };
      expect(rows.rows.map((r) => r.microblock_hash)).toEqual(definition.rows.map((r) => r.microblock_hash));
      return rows.rows.map((r) => `${r.sort_height}/${r.microblock_sequence} ${labels.get(r.microblock_hash)}`);
    };
    const confirming = (label: string, parent: Ref, last: string | null, sequence: number) =>
      newBlockEvent(label, parent, [], {
        parent_microblock: last === null ? `0x${'00'.repeat(32)}` : labelHash(`microblock ${last}`),
        parent_microblock_sequence: sequence,
      });

    await stream(a4, ['m0', 'm1', 'm2']);
    expect(await listed()).toEqual(['4/2 m2', '4/1 m1', '4/0 m0']);
    // a5 confirms up to m1: m2 is orphaned.
    const a5 = confirming('a5', a4, 'm1', 1);
    await send(a5.body);
    expect(await listed()).toEqual(['4/1 m1', '4/0 m0']);
    await stream(a5.ref, ['n0']);
    expect(await listed()).toEqual(['5/0 n0', '4/1 m1', '4/0 m0']);
    // A longer branch from a3: a4 and a5 leave the canonical chain, and the microblocks built on them with it.
    const c4 = await newBlock('c4', a3, 1, 0);
    const c5 = await newBlock('c5', c4.ref, 0, 0);
    const c6 = await newBlock('c6', c5.ref, 0, 0);
    for (const b of [c4, c5, c6]) await send(b.body);
    expect(await listed()).toEqual([]);
    // The first branch comes back; a6 confirms none of n0, which is orphaned.
    const a6 = confirming('a6', a5.ref, null, 0);
    const a7 = newBlockEvent('a7', a6.ref);
    for (const b of [a6, a7]) await send(b.body);
    expect(await listed()).toEqual(['4/1 m1', '4/0 m0']);
  });

  it('numbers an address’s history rows (address_txs.seq, migration 087) through a detached tip and the late block that fills the gap under it', async () => {
    // A key of its own, on top of whatever the tests above left canonical: only these blocks name its address.
    const key = `${'09'.repeat(32)}01`;
    const me = getAddressFromPrivateKey(key, 'testnet');
    const to = getAddressFromPrivateKey(`${'0a'.repeat(32)}01`, 'testnet');
    let n = 0n;
    const transfers = async (count: number) => {
      const out = [];
      for (let i = 0; i < count; i++) {
        const tx = await makeSTXTokenTransfer({
          recipient: to,
          amount: 1n,
          senderKey: key,
          network: 'testnet',
          fee: 180n,
          nonce: n++,
        });
        out.push({ txid: `0x${tx.txid()}`, raw: `0x${tx.serialize()}` });
      }
      return out;
    };
    const history = async (address: string) => {
      const { rows } = (await db.raw(
        'SELECT block_height, seq FROM address_txs WHERE address = ? ORDER BY block_height, microblock_sequence, tx_index',
        [address],
      )) as { rows: Array<{ block_height: number; seq: number }> };
      return rows.map((r) => `${r.block_height - base}:${r.seq}`);
    };
    const tip = (await db('chain_tip').first('index_block_hash', 'block_hash', 'block_height')) as Ref;
    const base = tip.block_height;
    const t1 = newBlockEvent('h1', tip, await transfers(2));
    const t2 = newBlockEvent('h2', t1.ref, await transfers(1));
    for (const b of [t1, t2]) await send(b.body);
    expect(await history(me)).toEqual(['1:1', '1:2', '2:3']);
    // A block one above the tip whose parent (a sibling of h2) is unknown becomes the tip on its own.
    const late = newBlockEvent('h2-late', t1.ref, await transfers(3));
    const child = newBlockEvent('h3', late.ref, await transfers(2));
    await send(child.body);
    expect(await history(me)).toEqual(['1:1', '1:2', '2:3', '3:4', '3:5']);
    // Its parent arrives late: it joins under its child and h2 leaves. h2's row goes, the late block's three come in,
    // and h3's two move from 4–5 to 6–7; the recipient's list likewise.
    await send(late.body);
    expect(await history(me)).toEqual(['1:1', '1:2', '2:3', '2:4', '2:5', '3:6', '3:7']);
    expect(await history(to)).toEqual(['1:1', '1:2', '2:3', '2:4', '2:5', '3:6', '3:7']);
    // The whole table as migration 087 numbers it from scratch.
    const kept = await db.raw('SELECT address, tx_id, seq FROM address_txs ORDER BY 1, 2');
    await db
      .transaction(async (trx) => {
        await trx.raw('UPDATE address_txs SET seq = 0');
        await trx.raw(numberedListFillSql(ADDRESS_TXS_LIST));
        expect((await trx.raw('SELECT address, tx_id, seq FROM address_txs ORDER BY 1, 2')).rows).toEqual(kept.rows);
        throw new Error('rollback');
      })
      .catch((err: Error) => {
        if (err.message !== 'rollback') throw err;
      });
  });
});
