import type { DbLiveNftEvent, DbLiveStxEvent } from '../datastore/live-queries';

/** The reference API's NFT event of its live topics (`nft-event`, `nft-asset-event:…`, `nft-collection-event:…`). */
export interface NftEventResponse {
  sender?: string;
  recipient?: string;
  asset_identifier: string;
  asset_event_type: 'transfer' | 'mint' | 'burn';
  value: { hex: string; repr: string };
  tx_id: string;
  tx_index: number;
  block_height: number;
  event_index: number;
}

/** The reference API's address transaction update: the transaction with what it moved for the principal. */
export interface AddressTransactionUpdateResponse {
  tx: Record<string, unknown>;
  stx_sent: string;
  stx_received: string;
  stx_transfers: Array<{ amount: string; sender?: string; recipient?: string }>;
}

const NFT_EVENT_TYPES: Record<string, NftEventResponse['asset_event_type']> = {
  nft_transfer_event: 'transfer',
  nft_mint_event: 'mint',
  nft_burn_event: 'burn',
};

export function toNftEventResponse(row: DbLiveNftEvent): NftEventResponse {
  const event: NftEventResponse = {
    asset_identifier: row.asset_identifier,
    asset_event_type: NFT_EVENT_TYPES[row.type] ?? 'transfer',
    value: { hex: row.value_hex, repr: row.value_repr ?? '' },
    tx_id: row.tx_id,
    tx_index: row.tx_index,
    block_height: row.block_height,
    event_index: row.event_index,
  };
  if (row.sender !== null) event.sender = row.sender;
  if (row.recipient !== null) event.recipient = row.recipient;
  return event;
}

/**
 * `tx` is the transaction as `/extended/v1/tx/{tx_id}` answers it; `stx_sent` counts the fee when the principal paid
 * it (the sponsor of a sponsored transaction, else its sender), as the reference API counts it. Amounts in micro-STX,
 * BigInt throughout.
 */
export function toAddressTransactionUpdate(
  tx: Record<string, unknown>,
  principal: string,
  events: DbLiveStxEvent[],
  fee: { fee_rate: string; sender_address: string; sponsor_address: string | null; sponsored: boolean } | undefined,
): AddressTransactionUpdateResponse {
  let sent = 0n;
  let received = 0n;
  const transfers: AddressTransactionUpdateResponse['stx_transfers'] = [];
  for (const e of events) {
    const amount = BigInt(e.amount);
    if (e.sender === principal) sent += amount;
    if (e.recipient === principal) received += amount;
    const t: { amount: string; sender?: string; recipient?: string } = { amount: amount.toString() };
    if (e.sender !== null) t.sender = e.sender;
    if (e.recipient !== null) t.recipient = e.recipient;
    transfers.push(t);
  }
  if (fee) {
    const payer = fee.sponsored && fee.sponsor_address ? fee.sponsor_address : fee.sender_address;
    if (payer === principal) sent += BigInt(fee.fee_rate);
  }
  return { tx, stx_sent: sent.toString(), stx_received: received.toString(), stx_transfers: transfers };
}
