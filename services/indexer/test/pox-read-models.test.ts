import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cl, type ClarityValue, getAddressFromPrivateKey, makeContractCall } from '@stacks/transactions';
import { createLogger } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, testInfra, BEFORE_GENESIS, newBlockEvent, type BlockRef } from '@bda/test-support';
import { c32address, c32ToB58 } from 'c32check';
import { stacksEventHandler } from '../src/stacks/stacks-event-handler';

/**
 * The PoX read models (`pox_events`, `pox_cycles`, `pox_cycle_signers`) as the indexer's own handler keeps them on a
 * real PostgreSQL, for a pool's story the recorded fixtures do not have: print events synthesized in the shapes the
 * pox-4 contract prints them (`delegate-stx`, `delegate-stack-stx`, `stack-aggregation-commit-indexed`,
 * `revoke-delegate-stx`, one in a failed transaction, one `(err …)`), a reward set carried with a cycle number; then a
 * reorg that takes the pool's blocks away, and its reversal. Expectations are written by hand.
 */

const POX4 = 'ST000000000000000000002AMW42H.pox-4';
const key = (n: number) => `${n.toString(16).padStart(2, '0').repeat(32)}01`;
const STACKER_KEY = key(1);
const POOL_KEY = key(2);
const STACKER = getAddressFromPrivateKey(STACKER_KEY, 'testnet');
const POOL = getAddressFromPrivateKey(POOL_KEY, 'testnet');
const SIGNER_KEY = `02${'5a'.repeat(32)}`;
const HASHBYTES = '7c'.repeat(20);
const hex = (cv: ClarityValue) => `0x${Cl.serialize(cv)}`;
const poxAddr = Cl.tuple({ version: Cl.bufferFromHex('00'), hashbytes: Cl.bufferFromHex(HASHBYTES) });

const nonces = new Map<string, bigint>();
async function call(senderKey: string, fn: string): Promise<{ txid: string; raw: string }> {
  const nonce = nonces.get(senderKey) ?? 0n;
  nonces.set(senderKey, nonce + 1n);
  const tx = await makeContractCall({
    contractAddress: POX4.split('.')[0]!,
    contractName: 'pox-4',
    functionName: fn,
    functionArgs: [],
    senderKey,
    network: 'testnet',
    fee: 1000n,
    nonce,
    validateWithAbi: false,
    postConditionMode: 'allow',
  });
  return { txid: `0x${tx.txid()}`, raw: `0x${tx.serialize()}` };
}

/** A pox-4 print: `(ok {name, stacker, balance, locked, burnchain-unlock-height, data})`, the state before the call. */
function poxPrint(name: string, stacker: string, data: Record<string, ClarityValue>, balance = 10_000_000n, locked = 0n) {
  return {
    type: 'contract_event',
    contract_event: {
      contract_identifier: POX4,
      topic: 'print',
      raw_value: hex(
        Cl.ok(
          Cl.tuple({
            name: Cl.stringAscii(name),
            stacker: Cl.standardPrincipal(stacker),
            balance: Cl.uint(balance),
            locked: Cl.uint(locked),
            'burnchain-unlock-height': Cl.uint(0),
            data: Cl.tuple(data),
          }),
        ),
      ),
    },
  };
}

type Ref = BlockRef;
interface Tx {
  tx: { txid: string; raw: string };
  status?: 'abort_by_response';
  events: Array<Record<string, unknown>>;
}

function newBlock(label: string, parent: Ref, txs: Tx[] = [], extra: Record<string, unknown> = {}) {
  return newBlockEvent(
    label,
    parent,
    txs.map(({ tx, status, events }) => ({ ...tx, status, events })),
    extra,
  );
}

describe('the PoX read models', () => {
  let db: Knex;
  const handler = stacksEventHandler(createLogger('indexer', 'silent'));
  async function send(body: unknown): Promise<void> {
    await db.transaction(async (trx) => {
      handler.onBatchStart();
      await handler.handle(trx, { path: '/new_block', received_at: '2024-01-01T00:00:00.000Z', body });
      await handler.beforeCommit(trx);
    });
  }
  const events = () =>
    db('pox_events')
      .orderBy(['block_height', 'tx_index', 'event_index'])
      .select(
        'block_height',
        'name',
        'stacker',
        'locked',
        'balance',
        'burnchain_unlock_height',
        'pox_addr',
        'pox_addr_raw',
        'delegator',
        'delegate_to',
        'signer_key',
        'start_cycle_id',
        'end_cycle_id',
        'amount_ustx',
        'data',
      );
  const cycles = async () => ({
    cycles: await db('pox_cycles').orderBy('cycle_number').select(),
    signers: await db('pox_cycle_signers').orderBy(['cycle_number', 'signing_key']).select(),
  });

  let b1: ReturnType<typeof newBlock>;
  let b3: ReturnType<typeof newBlock>;
  let stored: Awaited<ReturnType<typeof events>>;

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'pox_models'), maxConnections: 2 });
    await migrateLatest(db);
    const genesis = newBlock('root', BEFORE_GENESIS);
    await send(genesis.body);
    const rootRef = genesis.ref;
    // h1: the stacker delegates 5 STX to the pool until burn height 2000; a delegate-stx that failed prints nothing
    // that counts; an (err …) print is no event.
    b1 = newBlock('1', rootRef, [
      {
        tx: await call(STACKER_KEY, 'delegate-stx'),
        events: [
          poxPrint('delegate-stx', STACKER, {
            'amount-ustx': Cl.uint(5_000_000),
            'delegate-to': Cl.standardPrincipal(POOL),
            'unlock-burn-height': Cl.some(Cl.uint(2000)),
            'pox-addr': Cl.none(),
            'end-cycle-id': Cl.some(Cl.uint(9)),
            'start-cycle-id': Cl.uint(5),
          }),
        ],
      },
      {
        tx: await call(STACKER_KEY, 'delegate-stx'),
        status: 'abort_by_response',
        events: [poxPrint('delegate-stx', STACKER, { 'amount-ustx': Cl.uint(1), 'delegate-to': Cl.standardPrincipal(POOL) })],
      },
      {
        tx: await call(POOL_KEY, 'stack-stx'),
        events: [
          {
            type: 'contract_event',
            contract_event: { contract_identifier: POX4, topic: 'print', raw_value: hex(Cl.error(Cl.int(3))) },
          },
        ],
      },
    ]);
    // h2: the pool locks 4 STX of the stacker for cycles 6–7 and commits cycle 6 with a signer key; the block also
    // carries cycle 6's reward set.
    const b2 = newBlock(
      '2',
      b1.ref,
      [
        {
          tx: await call(POOL_KEY, 'delegate-stack-stx'),
          events: [
            poxPrint('delegate-stack-stx', STACKER, {
              'lock-amount': Cl.uint(4_000_000),
              'unlock-burn-height': Cl.uint(1500),
              'pox-addr': poxAddr,
              'start-burn-height': Cl.uint(1002),
              'lock-period': Cl.uint(2),
              delegator: Cl.standardPrincipal(POOL),
              'end-cycle-id': Cl.some(Cl.uint(8)),
              'start-cycle-id': Cl.uint(6),
            }),
          ],
        },
        {
          tx: await call(POOL_KEY, 'stack-aggregation-commit-indexed'),
          events: [
            poxPrint('stack-aggregation-commit-indexed', POOL, {
              'pox-addr': poxAddr,
              'reward-cycle': Cl.uint(6),
              'amount-ustx': Cl.uint(4_000_000),
              'signer-sig': Cl.none(),
              'signer-key': Cl.bufferFromHex(SIGNER_KEY),
              'max-amount': Cl.uint(10_000_000),
              'auth-id': Cl.uint(1),
              'end-cycle-id': Cl.some(Cl.uint(7)),
              'start-cycle-id': Cl.uint(6),
            }),
          ],
        },
      ],
      {
        cycle_number: 6,
        reward_set: {
          pox_ustx_threshold: '1000000',
          rewarded_addresses: [],
          signers: [
            { signing_key: SIGNER_KEY, weight: 3, stacked_amt: '4000000' },
            { signing_key: `03${'6b'.repeat(32)}`, weight: 1, stacked_amt: '1000000' },
          ],
        },
      },
    );
    // h3: the stacker revokes.
    b3 = newBlock('3', b2.ref, [
      {
        tx: await call(STACKER_KEY, 'revoke-delegate-stx'),
        events: [
          poxPrint(
            'revoke-delegate-stx',
            STACKER,
            {
              'delegate-to': Cl.standardPrincipal(POOL),
              'end-cycle-id': Cl.some(Cl.uint(9)),
              'start-cycle-id': Cl.uint(6),
            },
            6_000_000n,
            4_000_000n,
          ),
        ],
      },
    ]);
    for (const b of [b1, b2, b3]) await send(b.body);
    stored = await events();
  });
  afterAll(() => db.destroy());

  it('decodes each committed print of a successful call, with the state after the operation', () => {
    const addr = c32ToB58(c32address(26, HASHBYTES)); // the testnet p2pkh address of HASHBYTES
    expect(stored).toEqual([
      {
        block_height: 1,
        name: 'delegate-stx',
        stacker: STACKER,
        locked: '0',
        balance: '10000000',
        burnchain_unlock_height: '2000',
        pox_addr: null,
        pox_addr_raw: '0x',
        delegator: null,
        delegate_to: POOL,
        signer_key: null,
        start_cycle_id: '5',
        end_cycle_id: '9',
        amount_ustx: '5000000',
        data: { amount_ustx: '5000000', delegate_to: POOL, unlock_burn_height: '2000', end_cycle_id: '9', start_cycle_id: '5' },
      },
      {
        block_height: 2,
        name: 'delegate-stack-stx',
        stacker: STACKER,
        locked: '4000000',
        balance: '6000000',
        burnchain_unlock_height: '1500',
        pox_addr: addr,
        pox_addr_raw: `0x00${HASHBYTES}`,
        delegator: POOL,
        delegate_to: null,
        signer_key: null,
        start_cycle_id: '6',
        end_cycle_id: '8',
        amount_ustx: null,
        data: {
          lock_amount: '4000000',
          unlock_burn_height: '1500',
          start_burn_height: '1002',
          lock_period: '2',
          delegator: POOL,
          end_cycle_id: '8',
          start_cycle_id: '6',
        },
      },
      {
        block_height: 2,
        name: 'stack-aggregation-commit-indexed',
        stacker: POOL,
        locked: '0',
        balance: '10000000',
        burnchain_unlock_height: '0',
        pox_addr: addr,
        pox_addr_raw: `0x00${HASHBYTES}`,
        delegator: null,
        delegate_to: null,
        signer_key: `0x${SIGNER_KEY}`,
        start_cycle_id: '6',
        end_cycle_id: '7',
        amount_ustx: '4000000',
        data: {
          reward_cycle: '6',
          amount_ustx: '4000000',
          signer_key: `0x${SIGNER_KEY}`,
          end_cycle_id: '7',
          start_cycle_id: '6',
        },
      },
      {
        block_height: 3,
        name: 'revoke-delegate-stx',
        stacker: STACKER,
        locked: '4000000',
        balance: '6000000',
        burnchain_unlock_height: '0',
        pox_addr: null,
        pox_addr_raw: null,
        delegator: null,
        delegate_to: POOL,
        signer_key: null,
        start_cycle_id: '6',
        end_cycle_id: '9',
        amount_ustx: null,
        data: { delegate_to: POOL, end_cycle_id: '9', start_cycle_id: '6' },
      },
    ]);
  });

  it('keeps the cycle its reward set names, with the signers’ shares', async () => {
    const { cycles: cs, signers } = await cycles();
    expect(cs).toEqual([
      {
        cycle_number: 6,
        index_block_hash: newBlock('2', b1.ref).ref.index_block_hash,
        block_height: 2,
        total_weight: 4,
        total_stacked_amount: '5000000',
        total_signers: 2,
      },
    ]);
    expect(
      signers.map((s: Record<string, unknown>) => [
        s['signing_key'],
        s['weight'],
        s['stacked_amount'],
        s['weight_percent'],
        s['stacked_amount_percent'],
      ]),
    ).toEqual([
      [`0x${SIGNER_KEY}`, 3, '4000000', 75, 80],
      [`0x03${'6b'.repeat(32)}`, 1, '1000000', 25, 20],
    ]);
    // The signer address is the testnet single-sig address of the key's hash160.
    const h160 = createHash('ripemd160')
      .update(createHash('sha256').update(Buffer.from(SIGNER_KEY, 'hex')).digest())
      .digest('hex');
    expect(signers[0].signer_address).toBe(c32address(26, h160));
  });

  /** `chain_pox_positions` (migration 082) as it must be for `rows` (pox-4 events, as `events()` gives them). */
  async function expectPositions(rows: Array<{ block_height: number }>): Promise<void> {
    const perHeight = new Map<number, number>();
    for (const r of rows) perHeight.set(r.block_height, (perHeight.get(r.block_height) ?? 0) + 1);
    let before = 0;
    const want = [...perHeight]
      .sort(([x], [y]) => x - y)
      .map(([h, n]) => {
        const row = { pox_version: 4, block_height: h, events_before: String(before), event_count: n };
        before += n;
        return row;
      });
    expect(await db('chain_pox_positions').orderBy(['pox_version', 'block_height']).select()).toEqual(want);
  }

  it('undoes everything when a fork takes the blocks away, and brings it back when the chain returns', async () => {
    await expectPositions(stored);
    // A fork from block 1 that grows past block 3: blocks 2 and 3 leave the canonical chain.
    let parent = b1.ref;
    for (const h of [2, 3, 4]) {
      const b = newBlock(`fork ${h}`, parent);
      await send(b.body);
      parent = b.ref;
    }
    expect(await events()).toEqual(stored.slice(0, 1));
    expect(await cycles()).toEqual({ cycles: [], signers: [] });
    await expectPositions(stored.slice(0, 1));
    // The main chain grows past the fork again: its blocks come back with their events and reward set.
    const before = await cycles();
    parent = b3.ref;
    for (const h of [4, 5]) {
      const b = newBlock(`main ${h}`, parent);
      await send(b.body);
      parent = b.ref;
    }
    expect(await events()).toEqual(stored);
    expect((await cycles()).cycles).toHaveLength(1);
    await expectPositions(stored);
    expect(before.cycles).toHaveLength(0);
  });
});
