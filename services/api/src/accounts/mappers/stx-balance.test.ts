import { describe, expect, it } from '@jest/globals';
import type { DbStxBalance } from '../datastore/stx-balance';
import { poxVersionOf, toPrincipalStxBalanceResponse } from './principal-stx-balance';
import { toAddressStxBalanceResponse } from './stx-balance';

const base: DbStxBalance = {
  height: 10,
  burn_block_height: 700,
  balance: '1000',
  total_sent: '50',
  total_received: '1100',
  total_fees_sent: '60',
  total_miner_rewards_received: '10',
  lock_tx_id: `0x${'aa'.repeat(32)}`,
  locked_amount: '400',
  lock_height: 8,
  burnchain_lock_height: 690,
  burnchain_unlock_height: '750',
  lock_contract: 'SP000000000000000000002Q6VF78.pox-4',
};

describe('STX balance mappers', () => {
  it('shows the lock while its unlock burn height is not below the block read at, and zeros once it is', () => {
    expect(toAddressStxBalanceResponse(base, null)).toMatchObject({
      locked: '400',
      lock_height: 8,
      burnchain_unlock_height: 750,
    });
    expect(toAddressStxBalanceResponse({ ...base, burn_block_height: 750 }, null).locked).toBe('400');
    expect(toAddressStxBalanceResponse({ ...base, burn_block_height: 751 }, null)).toMatchObject({
      lock_tx_id: '',
      locked: '0',
      lock_height: 0,
      burnchain_lock_height: 0,
      burnchain_unlock_height: 0,
    });
  });

  it('adds the mempool fields only when asked: balance plus inbound minus outbound', () => {
    expect(toAddressStxBalanceResponse(base, null).estimated_balance).toBeUndefined();
    expect(toAddressStxBalanceResponse(base, { inbound: '5', outbound: '1005' })).toMatchObject({
      estimated_balance: '0',
      pending_balance_inbound: '5',
      pending_balance_outbound: '1005',
    });
  });

  it('v3: available is the balance minus the lock, mempool null unless something is pending', () => {
    expect(toPrincipalStxBalanceResponse(base, { inbound: '0', outbound: '0' })).toEqual({
      balance: '1000',
      available: '600',
      locked: {
        amount: '400',
        pox_version: 4,
        lock_tx_id: base.lock_tx_id,
        stacks_lock_height: 8,
        burn_lock_height: 690,
        burn_unlock_height: 750,
      },
      mempool: null,
    });
    expect(toPrincipalStxBalanceResponse({ ...base, burn_block_height: 800 }, { inbound: '7', outbound: '2' })).toMatchObject({
      available: '1000',
      locked: null,
      mempool: { estimated_balance: '1005', inbound: '7', outbound: '2' },
    });
  });

  it('names the PoX version from the lock contract', () => {
    expect(poxVersionOf(null)).toBe(1);
    expect(poxVersionOf('SP000000000000000000002Q6VF78.pox')).toBe(1);
    expect(poxVersionOf('SP000000000000000000002Q6VF78.pox-3')).toBe(3);
  });
});
