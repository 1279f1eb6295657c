import type { DbEvent } from '../db-types';
import { clarityValueView, type ClarityValueView } from '../tx-json/mined-tx-json';
import { int } from '../tx-json/row-values';

/**
 * The reference API's transaction-event shape (`/extended/v1/tx/events`, a transaction's `events`), rendered from a
 * stored `events` row by the api at request time and by the indexer when it writes the row (`events.json`,
 * migration 101): one mapper, so the kept text is the api's answer byte for byte.
 */
export type EventAssetType = 'transfer' | 'mint' | 'burn';

interface EventJsonBase {
  event_index: number;
  tx_id: string;
}

export type EventJson =
  | (EventJsonBase & {
      event_type: 'smart_contract_log';
      contract_log: { contract_id: string; topic: string; value: ClarityValueView };
    })
  | (EventJsonBase & {
      event_type: 'stx_lock';
      stx_lock_event: { locked_amount: string; unlock_height: number; locked_address: string };
    })
  | (EventJsonBase & {
      event_type: 'stx_asset';
      asset: { asset_event_type: EventAssetType; sender: string; recipient: string; amount: string; memo?: string };
    })
  | (EventJsonBase & {
      event_type: 'fungible_token_asset';
      asset: { asset_event_type: EventAssetType; asset_id: string; sender: string; recipient: string; amount: string };
    })
  | (EventJsonBase & {
      event_type: 'non_fungible_token_asset';
      asset: {
        asset_event_type: EventAssetType;
        asset_id: string;
        sender: string;
        recipient: string;
        value: ClarityValueView;
      };
    });

/** The columns of `events` the answer is made of. */
export type DbEventJsonColumns = Pick<
  DbEvent,
  | 'event_index'
  | 'tx_id'
  | 'type'
  | 'asset_identifier'
  | 'sender'
  | 'recipient'
  | 'amount'
  | 'memo'
  | 'value_hex'
  | 'value_repr'
  | 'contract_identifier'
  | 'topic'
  | 'locked_amount'
  | 'unlock_height'
  | 'locked_address'
>;

const ASSET_EVENTS: Record<
  string,
  { event_type: 'stx_asset' | 'fungible_token_asset' | 'non_fungible_token_asset'; asset_event_type: EventAssetType }
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
function eventValue(e: DbEventJsonColumns): ClarityValueView {
  if (e.value_hex && e.value_repr !== null) return { hex: e.value_hex, repr: e.value_repr };
  return clarityValueView(e.value_hex);
}

/**
 * A stored node event in the reference API's transaction-event shape. Missing parties are `''` (a mint has no
 * sender, a burn no recipient), as the reference does. Event types this api does not know yet map to `null`.
 */
export function toEventJson(e: DbEventJsonColumns): EventJson | null {
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
      const asset: { asset_event_type: EventAssetType; sender: string; recipient: string; amount: string; memo?: string } = {
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

/**
 * The kept answer text of a stored event (`events.json`): `JSON.stringify` of its answer, `null` for the kinds the
 * api leaves out.
 */
export function toEventJsonText(e: DbEventJsonColumns): string | null {
  const json = toEventJson(e);
  return json === null ? null : JSON.stringify(json);
}
