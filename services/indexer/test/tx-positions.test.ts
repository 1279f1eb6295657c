import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getAddressFromPrivateKey, makeContractCall, makeSTXTokenTransfer } from '@stacks/transactions';
import { createLogger } from '@bda/common';
import { createDb, migrateLatest, principalEventRowsSql } from '@bda/db';
import { createTestDatabase, testInfra, BEFORE_GENESIS, newBlockEvent, type BlockRef } from '@bda/test-support';
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

describe('chain_tx_positions through a reorg', () => {
  let db: Knex;
  const handler = stacksEventHandler(createLogger('indexer', 'silent'));
  async function send(body: unknown): Promise<void> {
    await db.transaction(async (trx) => {
      handler.onBatchStart();
      await handler.handle(trx, { path: '/new_block', received_at: '2024-01-01T00:00:00.000Z', body });
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
});
