import type { DbPoolDelegation, DbPoxEvent } from '../datastore/pox-events';

/** A PoX event as the reference API answers it (`/extended/v1/{pox}/events`…): amounts and heights as decimal strings. */
interface PoxEventResponse {
  block_height: number;
  tx_id: string;
  tx_index: number;
  event_index: number;
  stacker: string;
  locked: string;
  balance: string;
  burnchain_unlock_height: string;
  pox_addr: string | null;
  pox_addr_raw: string | null;
  name: string;
  data: Record<string, string | null>;
}

/** A pool member (`/extended/v1/{pox}/{pool_principal}/delegations`). */
interface PoolDelegationResponse {
  stacker: string;
  pox_addr?: string;
  amount_ustx: string;
  burn_block_unlock_height?: number;
  block_height: number;
  tx_id: string;
}

export function toPoxEventResponse(row: DbPoxEvent): PoxEventResponse {
  return {
    block_height: row.block_height,
    tx_id: row.tx_id,
    tx_index: row.tx_index,
    event_index: row.event_index,
    stacker: row.stacker,
    locked: row.locked,
    balance: row.balance,
    burnchain_unlock_height: row.burnchain_unlock_height,
    pox_addr: row.pox_addr,
    pox_addr_raw: row.pox_addr_raw,
    name: row.name,
    data: row.data,
  };
}

/** As the reference: no `pox_addr` when the delegation names none, no unlock height when it has none (or 0). */
export function toPoolDelegationResponse(row: DbPoolDelegation): PoolDelegationResponse {
  const out: PoolDelegationResponse = {
    stacker: row.stacker,
    amount_ustx: row.amount_ustx,
    block_height: row.block_height,
    tx_id: row.tx_id,
  };
  if (row.pox_addr) out.pox_addr = row.pox_addr;
  const unlock = row.unlock_burn_height === null ? 0 : Number(row.unlock_burn_height);
  if (unlock > 0) out.burn_block_unlock_height = unlock;
  return out;
}
