import { describe, expect, it } from '@jest/globals';
import { Cl, type ClarityValue } from '@stacks/transactions';
import { decodePoxPrintEvent } from './pox-print-event';

/**
 * The decoder of the PoX contracts' `print` events on values built here with `@stacks/transactions` in the shapes the
 * contracts print them, for the operations the recorded fixtures do not have; reward addresses against the BIP-173 and
 * BIP-350 test vectors and a well-known base58check address (on the stacker's network).
 */

const MAINNET = 'SP000000000000000000002Q6VF78';
const TESTNET = 'ST000000000000000000002AMW42H';
const POOL = 'SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.pool';
const HASH20 = '751e76e8199196d454941c45d1b3a323f1433bd6';
const HASH32 = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const KEY = `02${'ab'.repeat(32)}`;

const addr = (version: number, hash: string) =>
  Cl.tuple({ version: Cl.bufferFromHex(version.toString(16).padStart(2, '0')), hashbytes: Cl.bufferFromHex(hash) });

function print(
  name: string,
  stacker: string,
  data: Record<string, ClarityValue>,
  state = { balance: 1000n, locked: 0n, unlock: 0n },
) {
  return `0x${Cl.serialize(
    Cl.ok(
      Cl.tuple({
        name: Cl.stringAscii(name),
        stacker: Cl.principal(stacker),
        balance: Cl.uint(state.balance),
        locked: Cl.uint(state.locked),
        'burnchain-unlock-height': Cl.uint(state.unlock),
        data: Cl.tuple(data),
      }),
    ),
  )}`;
}

const cycles = (start: number, end: number | null) => ({
  'start-cycle-id': Cl.uint(start),
  'end-cycle-id': end === null ? Cl.none() : Cl.some(Cl.uint(end)),
});

describe('decodePoxPrintEvent', () => {
  it('encodes reward addresses of every kind on the stacker’s network', () => {
    const cases: Array<[number, string, string, string]> = [
      [0, HASH20, MAINNET, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH'],
      [4, HASH20, MAINNET, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
      [4, HASH20, TESTNET, 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
      [6, HASH32, MAINNET, 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ];
    for (const [version, hash, stacker, want] of cases) {
      const ev = decodePoxPrintEvent(
        print('stack-extend', stacker, {
          'extend-count': Cl.uint(1),
          'unlock-burn-height': Cl.uint(500),
          'pox-addr': addr(version, hash),
          'signer-key': Cl.bufferFromHex(KEY),
          ...cycles(3, 4),
        }),
        4,
      );
      expect([version, stacker, ev?.pox_addr, ev?.pox_addr_raw]).toEqual([version, stacker, want, `0x0${version}${hash}`]);
    }
    // A version no Bitcoin address has: raw only.
    const odd = decodePoxPrintEvent(
      print('stack-extend', MAINNET, {
        'extend-count': Cl.uint(1),
        'unlock-burn-height': Cl.uint(5),
        'pox-addr': addr(9, HASH20),
      }),
      2,
    );
    expect([odd?.pox_addr, odd?.pox_addr_raw]).toEqual([null, `0x09${HASH20}`]);
  });

  it('decodes the pool and increase operations with the state after them', () => {
    const state = { balance: 1000n, locked: 300n, unlock: 700n };
    const inc = decodePoxPrintEvent(
      print(
        'delegate-stack-increase',
        MAINNET,
        {
          'pox-addr': addr(0, HASH20),
          'increase-by': Cl.uint(200),
          'total-locked': Cl.uint(500),
          delegator: Cl.principal(POOL),
          ...cycles(5, 7),
        },
        state,
      ),
      4,
    );
    expect(inc).toMatchObject({
      name: 'delegate-stack-increase',
      locked: 500n,
      balance: 800n,
      burnchain_unlock_height: 700n,
      delegator: POOL,
    });
    expect(inc?.data).toEqual({
      increase_by: '200',
      total_locked: '500',
      delegator: POOL,
      end_cycle_id: '7',
      start_cycle_id: '5',
    });
    const solo = decodePoxPrintEvent(
      print(
        'stack-increase',
        MAINNET,
        { 'increase-by': Cl.uint(50), 'total-locked': Cl.uint(350), 'signer-key': Cl.bufferFromHex(KEY), ...cycles(5, null) },
        state,
      ),
      4,
    );
    expect(solo).toMatchObject({ locked: 350n, balance: 950n, signer_key: `0x${KEY}`, start_cycle_id: 5n, end_cycle_id: null });
    const ext = decodePoxPrintEvent(
      print(
        'delegate-stack-extend',
        MAINNET,
        {
          'pox-addr': addr(0, HASH20),
          'unlock-burn-height': Cl.uint(900),
          'extend-count': Cl.uint(2),
          delegator: Cl.principal(POOL),
          ...cycles(6, 9),
        },
        state,
      ),
      4,
    );
    expect(ext).toMatchObject({ locked: 300n, balance: 1000n, burnchain_unlock_height: 900n, unlock_burn_height: 900n });
    const commit = decodePoxPrintEvent(
      print('stack-aggregation-commit', POOL, {
        'pox-addr': addr(0, HASH20),
        'reward-cycle': Cl.uint(8),
        'amount-ustx': Cl.uint(12345),
        'signer-key': Cl.bufferFromHex(KEY),
        ...cycles(8, 9),
      }),
      4,
    );
    expect(commit).toMatchObject({ stacker: POOL, amount_ustx: 12345n, signer_key: `0x${KEY}` });
    expect(commit?.data).toEqual({
      reward_cycle: '8',
      amount_ustx: '12345',
      signer_key: `0x${KEY}`,
      end_cycle_id: '9',
      start_cycle_id: '8',
    });
    const increase = decodePoxPrintEvent(
      print('stack-aggregation-increase', POOL, {
        'pox-addr': addr(0, HASH20),
        'reward-cycle': Cl.uint(8),
        'amount-ustx': Cl.uint(5),
        'reward-cycle-index': Cl.uint(0),
        ...cycles(8, 9),
      }),
      4,
    );
    expect(increase?.data).toEqual({ reward_cycle: '8', amount_ustx: '5', end_cycle_id: '9', start_cycle_id: '8' });
  });

  it('reads the pox-2 forms (no signer key, no cycle ids) and handle-unlock', () => {
    const stx = decodePoxPrintEvent(
      print('stack-stx', MAINNET, {
        'lock-amount': Cl.uint(400),
        'lock-period': Cl.uint(2),
        'pox-addr': addr(0, HASH20),
        'start-burn-height': Cl.uint(10),
        'unlock-burn-height': Cl.uint(60),
      }),
      2,
    );
    expect(stx).toMatchObject({ locked: 400n, balance: 600n, burnchain_unlock_height: 60n, signer_key: null });
    expect(stx?.data).toEqual({
      lock_amount: '400',
      lock_period: '2',
      start_burn_height: '10',
      unlock_burn_height: '60',
      end_cycle_id: null,
      start_cycle_id: null,
    });
    const unlock = decodePoxPrintEvent(
      print(
        'handle-unlock',
        MAINNET,
        { 'first-cycle-locked': Cl.uint(3), 'first-unlocked-cycle': Cl.uint(5) },
        { balance: 100n, locked: 400n, unlock: 60n },
      ),
      2,
    );
    expect(unlock).toMatchObject({ balance: 500n, locked: 400n, burnchain_unlock_height: 60n });
    const delegate = decodePoxPrintEvent(
      print('delegate-stx', MAINNET, {
        'amount-ustx': Cl.uint(9),
        'delegate-to': Cl.principal(POOL),
        'unlock-burn-height': Cl.none(),
        'pox-addr': Cl.none(),
      }),
      3,
    );
    expect(delegate).toMatchObject({
      delegate_to: POOL,
      amount_ustx: 9n,
      burnchain_unlock_height: 0n,
      pox_addr: null,
      pox_addr_raw: '0x',
    });
    expect(delegate?.data).toEqual({ amount_ustx: '9', delegate_to: POOL, end_cycle_id: null, start_cycle_id: null });
  });

  it('is null for an error response, an unknown operation, a missing field or bytes that are no Clarity value', () => {
    expect(decodePoxPrintEvent(`0x${Cl.serialize(Cl.error(Cl.uint(3)))}`, 4)).toBeNull();
    expect(decodePoxPrintEvent(print('stack-everything', MAINNET, {}), 4)).toBeNull();
    expect(decodePoxPrintEvent(print('stack-stx', MAINNET, { 'lock-amount': Cl.uint(1) }), 4)).toBeNull();
    expect(decodePoxPrintEvent('0x0c00', 4)).toBeNull();
    expect(decodePoxPrintEvent(`0x${Cl.serialize(Cl.ok(Cl.uint(1)))}`, 4)).toBeNull();
  });
});
