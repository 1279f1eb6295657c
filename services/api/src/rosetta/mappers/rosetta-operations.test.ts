import { describe, expect, it } from '@jest/globals';
import type { DbRosettaBlock, DbRosettaTx } from '../datastore/rosetta-block';
import { effectiveLock, toRosettaBlock } from './rosetta-operations';

const NO_POX = { pox_v1_unlock_height: null, pox_v2_unlock_height: null, pox_v3_unlock_height: null };
const ADDR = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';

function block(over: Partial<DbRosettaBlock>): DbRosettaBlock {
  return {
    index_block_hash: `0x${'11'.repeat(32)}`,
    block_height: 10,
    parent_index_block_hash: `0x${'10'.repeat(32)}`,
    burn_block_height: 200,
    burn_block_time: '1700000000',
    block_time: null,
    parent_burn_block_height: 199,
    genesis_block_height: 1,
    txs: [],
    events: [],
    rewards: [],
    expiring_locks: [],
    ...NO_POX,
    ...over,
  };
}

const tx = (over: Partial<DbRosettaTx>): DbRosettaTx => ({
  tx_id: `0x${'aa'.repeat(32)}`,
  tx_index: 0,
  type_id: 'contract_call',
  status: 'success',
  sender_address: ADDR,
  sponsor_address: null,
  sponsored: false,
  nonce: '3',
  fee_rate: '500',
  payload: {},
  contract_id: 'ST000000000000000000002AMW42H.pox-4',
  ...over,
});

describe('effectiveLock', () => {
  const lock = { locked_amount: '1000', unlock_height: '150', contract_identifier: 'ST000000000000000000002AMW42H.pox-2' };
  it('keeps the amount locked below the unlock height and releases it at that height', () => {
    expect(effectiveLock(lock, 149, NO_POX)).toBe(1000n);
    expect(effectiveLock(lock, 150, NO_POX)).toBe(0n);
    expect(effectiveLock(null, 10, NO_POX)).toBe(0n);
  });
  it("releases a lock once its PoX contract version is retired, and only that version's", () => {
    const pox = { pox_v1_unlock_height: 100, pox_v2_unlock_height: 120, pox_v3_unlock_height: null };
    expect(effectiveLock(lock, 119, pox)).toBe(1000n);
    expect(effectiveLock(lock, 120, pox)).toBe(0n);
    expect(effectiveLock({ ...lock, contract_identifier: null }, 100, pox)).toBe(0n); // a 2.0 lock (pox v1)
    expect(effectiveLock({ ...lock, contract_identifier: 'ST000000000000000000002AMW42H.pox-4' }, 120, pox)).toBe(1000n);
  });
});

describe('toRosettaBlock', () => {
  it('moves an expiring lock back from the stacked sub-account in a block-level transaction, with miner rewards', () => {
    const b = block({
      burn_block_height: 150,
      parent_burn_block_height: 149,
      expiring_locks: [
        { locked_address: ADDR, locked_amount: '1000', unlock_height: '150', contract_identifier: null },
        // Extended before it expired: still locked, no unlock.
        { locked_address: 'ST000000000000000000002AMW42H', locked_amount: '7', unlock_height: '170', contract_identifier: null },
      ],
      rewards: [{ reward_index: 0, recipient: ADDR, amount: '2500' }],
    });
    const [first] = toRosettaBlock(b, new Map()).transactions;
    expect(first!.transaction_identifier.hash).toBe(b.index_block_hash);
    expect(first!.operations.map((o) => [o.type, o.account?.address, o.account?.sub_account?.address, o.amount?.value])).toEqual([
      ['miner_reward', ADDR, undefined, '2500'],
      ['stx_unlock', ADDR, 'stacked', '-1000'],
      ['stx_unlock', ADDR, undefined, '1000'],
    ]);
    expect(first!.operations[2]!.related_operations).toEqual([{ index: 1 }]);
  });

  it('moves only the difference when a lock replaces one still in force, and charges the fee of a failed call', () => {
    const b = block({
      burn_block_height: 130,
      txs: [tx({ status: 'abort_by_response' }), tx({ tx_id: `0x${'bb'.repeat(32)}`, tx_index: 1, fee_rate: '0' })],
      events: [
        {
          tx_id: `0x${'bb'.repeat(32)}`,
          event_index: 0,
          type: 'stx_lock_event',
          sender: null,
          recipient: null,
          amount: null,
          memo: null,
          locked_address: ADDR,
          locked_amount: '1500',
          unlock_height: '160',
          contract_identifier: 'ST000000000000000000002AMW42H.pox-4',
          prev_lock: { locked_amount: '1000', unlock_height: '140', contract_identifier: 'ST000000000000000000002AMW42H.pox-4' },
        },
      ],
    });
    const [failed, locking] = toRosettaBlock(b, new Map()).transactions;
    expect(failed!.operations.map((o) => [o.type, o.status, o.amount?.value])).toEqual([
      ['fee', 'success', '-500'],
      ['contract_call', 'abort_by_response', undefined],
    ]);
    expect(locking!.operations.map((o) => [o.type, o.account?.sub_account?.address ?? null, o.amount?.value])).toEqual([
      ['contract_call', null, undefined],
      ['stx_lock', null, '-500'],
      ['stx_lock', 'stacked', '500'],
    ]);
  });

  it('shows genesis allocations as mints of the genesis block only', () => {
    const genesis = new Map([[ADDR, 42n]]);
    const g = toRosettaBlock(block({ block_height: 1 }), genesis);
    expect(g.parent_block_identifier).toEqual(g.block_identifier);
    expect(g.transactions[0]!.operations).toMatchObject([{ type: 'mint', account: { address: ADDR }, amount: { value: '42' } }]);
    expect(toRosettaBlock(block({}), genesis).transactions).toEqual([]);
  });
});
