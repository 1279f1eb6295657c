import type { DbEvent } from '@bda/db';
import type { AssetEventType, ClarityValueResponse, TransactionEventResponse } from '../../api-types';
import { clarityValueView } from '../../codec';
import { int } from '../../mappers/row-values';

const ASSET_EVENTS: Record<
  string,
  { event_type: 'stx_asset' | 'fungible_token_asset' | 'non_fungible_token_asset'; asset_event_type: AssetEventType }
> = {
  stx_transfer_event: { event_type: 'stx_asset', asset_event_type: 'transfer' },
  stx_mint_event: { event_type: 'stx_asset', asset_event_type: 'mint' },
  stx_burn_event: { event_type: 'stx_asset', asset_event_type: 'burn' },
  ft_transfer_event: { event_type: 'fungible_token_asset', asset_event_type: 'transfer' },
  ft_mint_event: { event_type: 'fungible_token_asset', asset_event_type: 'mint' },
  ft_burn_event: { event_type: 'fungible_token_asset', asset_event_type: 'burn' },
  nft_transfer_event: { event_type: 'non_fungible_token_asset', asset_event_type: 'transfer' },
  nft_mint_event: { event_type: 'non_fungible_token_asset', asset_event_type: 'mint' },
  nft_burn_event: { event_type: 'non_fungible_token_asset', asset_event_type: 'burn' },
};

/** The stored Clarity value of an NFT or log event: the indexer's repr, decoded here only if it had none. */
function eventValue(e: DbEvent): ClarityValueResponse {
  if (e.value_hex && e.value_repr !== null) return { hex: e.value_hex, repr: e.value_repr };
  return clarityValueView(e.value_hex);
}

/**
 * A stored node event in the reference API's transaction-event shape. Missing parties are `''` (a mint has no
 * sender, a burn no recipient), as the reference does. Event types this api does not know yet map to `null`.
 */
export function toEventResponse(e: DbEvent): TransactionEventResponse | null {
  const base = { event_index: e.event_index, tx_id: e.tx_id };
  if (e.type === 'contract_event') {
    return {
      ...base,
      event_type: 'smart_contract_log',
      contract_log: { contract_id: e.contract_identifier ?? '', topic: e.topic ?? '', value: eventValue(e) },
    };
  }
  if (e.type === 'stx_lock_event') {
    return {
      ...base,
      event_type: 'stx_lock',
      stx_lock_event: {
        locked_amount: e.locked_amount ?? '0',
        unlock_height: int(e.unlock_height),
        locked_address: e.locked_address ?? '',
      },
    };
  }
  const kind = ASSET_EVENTS[e.type];
  if (!kind) return null;
  const parties = { sender: e.sender ?? '', recipient: e.recipient ?? '' };
  switch (kind.event_type) {
    case 'stx_asset': {
      const asset: { asset_event_type: AssetEventType; sender: string; recipient: string; amount: string; memo?: string } = {
        asset_event_type: kind.asset_event_type,
        ...parties,
        amount: e.amount ?? '0',
      };
      if (kind.asset_event_type === 'transfer' && e.memo && e.memo !== '0x') asset.memo = e.memo;
      return { ...base, event_type: 'stx_asset', asset };
    }
    case 'fungible_token_asset':
      return {
        ...base,
        event_type: 'fungible_token_asset',
        asset: {
          asset_event_type: kind.asset_event_type,
          asset_id: e.asset_identifier ?? '',
          ...parties,
          amount: e.amount ?? '0',
        },
      };
    case 'non_fungible_token_asset':
      return {
        ...base,
        event_type: 'non_fungible_token_asset',
        asset: {
          asset_event_type: kind.asset_event_type,
          asset_id: e.asset_identifier ?? '',
          ...parties,
          value: eventValue(e),
        },
      };
  }
}

/** Events in order, leaving out the kinds this api does not know. */
export function toEventResponses(events: DbEvent[]): TransactionEventResponse[] {
  return events.flatMap((e) => toEventResponse(e) ?? []);
}
