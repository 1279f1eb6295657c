import type { DbMempoolStxDelta, DbStxBalance } from '../datastore/stx-balance';
import { toStxLockResponse } from './stx-balance';

/** `/extended/v3/principals/{principal}/balances/stx`. */
export interface PrincipalStxBalanceResponse {
  balance: string;
  available: string;
  locked: {
    amount: string;
    pox_version: number;
    lock_tx_id: string;
    stacks_lock_height: number;
    burn_lock_height: number;
    burn_unlock_height: number;
  } | null;
  mempool: { estimated_balance: string; inbound: string; outbound: string } | null;
}

/** The PoX version of a lock's contract: `pox` (or none named, as PoX-1 nodes sent) is 1, `pox-N` is N. */
export function poxVersionOf(contract: string | null): number {
  const m = contract === null ? null : /\.pox(?:-([0-9]+))?$/.exec(contract);
  return m?.[1] ? Number(m[1]) : 1;
}

/**
 * `available` is the balance minus the lock in force; `locked` is null when nothing is locked; `mempool` is null when
 * no pending transaction moves the principal's STX, else the available balance after them.
 */
export function toPrincipalStxBalanceResponse(b: DbStxBalance, pending: DbMempoolStxDelta): PrincipalStxBalanceResponse {
  const lock = toStxLockResponse(b);
  const locked = BigInt(lock.locked);
  const available = BigInt(b.balance) - locked;
  const inbound = BigInt(pending.inbound);
  const outbound = BigInt(pending.outbound);
  return {
    balance: b.balance,
    available: available.toString(),
    locked:
      locked > 0n
        ? {
            amount: lock.locked,
            pox_version: poxVersionOf(b.lock_contract),
            lock_tx_id: lock.lock_tx_id,
            stacks_lock_height: lock.lock_height,
            burn_lock_height: lock.burnchain_lock_height,
            burn_unlock_height: lock.burnchain_unlock_height,
          }
        : null,
    mempool:
      inbound > 0n || outbound > 0n
        ? { estimated_balance: (available + inbound - outbound).toString(), inbound: pending.inbound, outbound: pending.outbound }
        : null,
  };
}
