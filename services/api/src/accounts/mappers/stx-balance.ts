import type { DbMempoolStxDelta, DbStxBalance } from '../datastore/stx-balance';

/** The lock part of a STX balance (`StxBalance` of the reference API). */
export interface StxLockResponse {
  lock_tx_id: string;
  locked: string;
  lock_height: number;
  burnchain_lock_height: number;
  burnchain_unlock_height: number;
}

/** `/extended/v1/address/{principal}/stx` and the `stx` of `/balances`. */
export interface AddressStxBalanceResponse extends StxLockResponse {
  balance: string;
  estimated_balance?: string;
  pending_balance_inbound?: string;
  pending_balance_outbound?: string;
  total_sent: string;
  total_received: string;
  total_fees_sent: string;
  total_miner_rewards_received: string;
}

/** `/extended/v2/addresses/{principal}/balances/stx` (and v3's STX balance). */
export interface StxBalanceResponse extends StxLockResponse {
  balance: string;
  estimated_balance?: string;
  pending_balance_inbound?: string;
  pending_balance_outbound?: string;
  total_miner_rewards_received: string;
}

/**
 * The lock in force at the balance's height: the newest lock event up to it, while its unlock burn height is not
 * below the burn height of the balance's block (the reference API's rule); zeros and an empty tx id otherwise.
 */
export function toStxLockResponse(b: DbStxBalance): StxLockResponse {
  const unlock = b.burnchain_unlock_height === null ? null : Number(b.burnchain_unlock_height);
  if (b.lock_tx_id === null || unlock === null || unlock < b.burn_block_height) {
    return { lock_tx_id: '', locked: '0', lock_height: 0, burnchain_lock_height: 0, burnchain_unlock_height: 0 };
  }
  return {
    lock_tx_id: b.lock_tx_id,
    locked: b.locked_amount ?? '0',
    lock_height: b.lock_height ?? 0,
    burnchain_lock_height: b.burnchain_lock_height ?? 0,
    burnchain_unlock_height: unlock,
  };
}

/** The mempool-aware fields: the balance after the pending transactions, and what they move each way. */
function pendingFields(balance: string, pending: DbMempoolStxDelta | null) {
  if (pending === null) return {};
  return {
    estimated_balance: (BigInt(balance) + BigInt(pending.inbound) - BigInt(pending.outbound)).toString(),
    pending_balance_inbound: pending.inbound,
    pending_balance_outbound: pending.outbound,
  };
}

export function toAddressStxBalanceResponse(b: DbStxBalance, pending: DbMempoolStxDelta | null): AddressStxBalanceResponse {
  return {
    balance: b.balance,
    ...pendingFields(b.balance, pending),
    total_sent: b.total_sent,
    total_received: b.total_received,
    total_fees_sent: b.total_fees_sent,
    total_miner_rewards_received: b.total_miner_rewards_received,
    ...toStxLockResponse(b),
  };
}

export function toStxBalanceResponse(b: DbStxBalance, pending: DbMempoolStxDelta | null): StxBalanceResponse {
  return {
    balance: b.balance,
    ...pendingFields(b.balance, pending),
    total_miner_rewards_received: b.total_miner_rewards_received,
    ...toStxLockResponse(b),
  };
}
