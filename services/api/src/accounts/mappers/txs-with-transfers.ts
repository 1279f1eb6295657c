import { transfersOfItem, type DbEvent } from '@bda/db';
import type { ClarityValueResponse, TransactionResponse } from '../../api-types';
import { clarityValueView } from '../../codec';
import type { ContractAbis } from '../../chain/datastore/contract-abis';
import { toTransactionResponse, withoutFunctionArgs } from '../../chain/mappers/tx';
import { withResultsJson } from '../../mappers/page-json';
import type { DbTxWithTransfers } from '../datastore/txs-with-transfers';

/** A party of a transfer: left out when there is none (a mint has no sender, a burn no recipient). */
type Parties = { sender?: string; recipient?: string };

interface StxTransferResponse extends Parties {
  amount: string;
}

interface FtTransferResponse extends Parties {
  amount: string;
  asset_identifier: string;
}

interface NftTransferResponse extends Parties {
  value: ClarityValueResponse;
  asset_identifier: string;
}

/** An item of `/transactions_with_transfers` (and, without the token lists, of `/{tx_id}/with_transfers`). */
export interface AddressTransactionWithTransfersResponse {
  tx: TransactionResponse;
  stx_sent: string;
  stx_received: string;
  stx_transfers: StxTransferResponse[];
  ft_transfers?: FtTransferResponse[];
  nft_transfers?: NftTransferResponse[];
}

/**
 * `/{tx_id}/with_transfers`: the transaction and the principal's STX transfers, by the mapper the indexer renders the
 * list's kept parts with (`transfersOfItem`, `@bda/db`).
 */
export function toTxWithTransfersResponse(
  principal: string,
  row: DbTxWithTransfers,
  abis: ContractAbis,
  opts: { tokens: boolean },
): AddressTransactionWithTransfersResponse {
  return { tx: toTransactionResponse(row, [], abis), ...transfersOfItem(principal, row, opts) };
}

/**
 * A page of `/extended/v2/addresses/{address}/transactions` as JSON text: `head` (the page's other members, as
 * `JSON.stringify` writes them) and the page's joined items (`{"tx":…,"stx_sent":…,"stx_received":…,"events":{…}}`,
 * the transaction's kept list text and the principal's kept `v2_tail`, ADR 0039/0046) copied in. With
 * `excludeFunctionArgs` each item is parsed and written again with its transaction's contract call arguments left
 * out: the text `JSON.stringify` gives the item (`tx` first, then the tail's members, whose keys are not integers, so
 * parsing keeps their order and writing them again gives their kept bytes).
 */
export function toAddressTransactionsPageJson(head: object, results: string, excludeFunctionArgs: boolean): string {
  const list = excludeFunctionArgs
    ? (JSON.parse(`[${results}]`) as Array<{ tx: object }>)
        .map((item) => JSON.stringify({ ...item, tx: withoutFunctionArgs(item.tx) }))
        .join(',')
    : results;
  return withResultsJson(head, list);
}

/** An item of `/extended/v2/addresses/{address}/transactions/{tx_id}/events`. */
export type AddressTransactionEventResponse =
  | { type: 'stx'; event_index: number; data: { type: string; amount: string; sender?: string; recipient?: string } }
  | {
      type: 'ft';
      event_index: number;
      data: { type: string; amount: string; asset_identifier: string; sender?: string; recipient?: string };
    }
  | {
      type: 'nft';
      event_index: number;
      data: { type: string; asset_identifier: string; value: ClarityValueResponse; sender?: string; recipient?: string };
    };

export function toAddressTransactionEventResponse(e: DbEvent): AddressTransactionEventResponse {
  const [family, action] = e.type.replace(/_event$/, '').split('_') as ['stx' | 'ft' | 'nft', string];
  const p: Parties = {};
  if (e.sender !== null) p.sender = e.sender;
  if (e.recipient !== null) p.recipient = e.recipient;
  switch (family) {
    case 'stx':
      return { type: 'stx', event_index: e.event_index, data: { type: action, amount: e.amount ?? '0', ...p } };
    case 'ft':
      return {
        type: 'ft',
        event_index: e.event_index,
        data: { type: action, amount: e.amount ?? '0', asset_identifier: e.asset_identifier ?? '', ...p },
      };
    default:
      return {
        type: 'nft',
        event_index: e.event_index,
        data: {
          type: action,
          asset_identifier: e.asset_identifier ?? '',
          value: e.value_hex && e.value_repr !== null ? { hex: e.value_hex, repr: e.value_repr } : clarityValueView(e.value_hex),
          ...p,
        },
      };
  }
}
