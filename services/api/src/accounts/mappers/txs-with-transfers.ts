import { transfersOfItem, withTxText, type DbEvent } from '@bda/db';
import type { ClarityValueResponse, TransactionResponse } from '../../api-types';
import { clarityValueView } from '../../codec';
import type { ContractAbis } from '../../chain/datastore/contract-abis';
import { toTransactionResponse, withoutFunctionArgs } from '../../chain/mappers/tx';
import type { DbKeptHistoryItem, DbTxWithTransfers } from '../datastore/txs-with-transfers';

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
 * An item of `/transactions_with_transfers` as JSON text: the transaction's kept list text (ADR 0035) and the
 * principal's kept part (`transfers_tail`, ADR 0039), copied in unparsed.
 */
export function toTxWithTransfersJson(row: DbKeptHistoryItem): string {
  return withTxText(row.json, row.tail);
}

/**
 * An item of `/extended/v2/addresses/{address}/transactions` as JSON text (`{"tx":…,"stx_sent":…,"stx_received":…,
 * "events":{…}}`): the transaction's kept list text (without the function arguments on request) and the principal's
 * kept part (`v2_tail`, rendered by the indexer with `addressTransactionTail`, ADR 0039).
 */
export function toAddressTransactionJson(row: DbKeptHistoryItem, excludeFunctionArgs: boolean): string {
  const tx = excludeFunctionArgs ? JSON.stringify(withoutFunctionArgs(JSON.parse(row.json) as object)) : row.json;
  return withTxText(tx, row.tail);
}

/** The cursor of a transaction in the v2 list: `<index block hash>:<microblock sequence>:<tx index>`. */
export function txCursor(row: Pick<DbKeptHistoryItem, 'index_block_hash' | 'microblock_sequence' | 'tx_index'>): string {
  return `${row.index_block_hash}:${row.microblock_sequence ?? 2147483647}:${row.tx_index}`;
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
