import type { DbRosettaBalance } from '../datastore/rosetta-balance';
import { effectiveLock } from './rosetta-operations';
import { STACKED_SUB_ACCOUNT, STX, type Amount, type BlockIdentifier } from './rosetta-types';

export interface AccountBalanceResponse {
  block_identifier: BlockIdentifier;
  balances: Amount[];
  metadata: { sequence_number: number };
}

/** The STX an account holds at a block: total, locked (stacked) and spendable (total − locked), as BigInts. */
function balanceParts(row: DbRosettaBalance, genesisAllocation: bigint): { total: bigint; locked: bigint; spendable: bigint } {
  const total = genesisAllocation + BigInt(row.received) + BigInt(row.rewards) - BigInt(row.sent) - BigInt(row.fees);
  const locked = effectiveLock(row.last_lock, row.burn_block_height, row);
  return { total, locked, spendable: total - locked };
}

/**
 * `/account/balance` (`genesisAllocation`: what the account got at genesis without a node event): the spendable balance of the account, or its locked balance for the `stacked` sub-account;
 * `sequence_number` is the next nonce of the address as origin at that block.
 */
export function toAccountBalanceResponse(
  row: DbRosettaBalance,
  subAccount: string | undefined,
  genesisAllocation: bigint,
): AccountBalanceResponse {
  const parts = balanceParts(row, genesisAllocation);
  const value = subAccount === STACKED_SUB_ACCOUNT ? parts.locked : parts.spendable;
  const nextNonce = row.last_nonce === null ? 0 : Number(BigInt(row.last_nonce) + 1n);
  return {
    block_identifier: { index: row.block_height, hash: row.index_block_hash },
    balances: [{ value: value.toString(), currency: STX }],
    metadata: { sequence_number: nextNonce },
  };
}
