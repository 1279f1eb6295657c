import type { DbEvent } from '@bda/db';
import type { ClarityValueResponse, TransactionResponse } from '../../api-types';
import { clarityValueView } from '../../codec';
import type { ContractAbis } from '../../chain/datastore/contract-abis';
import { toTransactionResponse, withoutFunctionArgs } from '../../chain/mappers/tx';
import type { DbKeptTxWithTransfers, DbPrincipalTransfer, DbTxWithTransfers } from '../datastore/txs-with-transfers';

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

function parties(t: DbPrincipalTransfer): Parties {
  const out: Parties = {};
  if (t.sender !== null) out.sender = t.sender;
  if (t.recipient !== null) out.recipient = t.recipient;
  return out;
}

const isStx = (t: DbPrincipalTransfer) => t.type.startsWith('stx_');

/**
 * What the principal sent and received in STX by the transaction: the fee when it is the transaction's origin (as the
 * reference API counts it, sponsored or not) plus the STX events it sent; the STX events it received.
 */
function stxMovedBy(
  principal: string,
  row: Pick<DbKeptTxWithTransfers, 'sender_address' | 'fee_rate'>,
  transfers: DbPrincipalTransfer[],
) {
  let sent = row.sender_address === principal ? BigInt(row.fee_rate) : 0n;
  let received = 0n;
  for (const t of transfers) {
    if (!isStx(t)) continue;
    if (t.sender === principal) sent += BigInt(t.amount ?? '0');
    if (t.recipient === principal) received += BigInt(t.amount ?? '0');
  }
  return { sent, received };
}

function nftValue(t: DbPrincipalTransfer): ClarityValueResponse {
  if (t.value_hex && t.value_repr !== null) return { hex: t.value_hex, repr: t.value_repr };
  return clarityValueView(t.value_hex);
}

/** The per-principal fields of an item of `/transactions_with_transfers` (all but `tx`), in the answer's order. */
function transfersOfItem(
  principal: string,
  row: Pick<DbKeptTxWithTransfers, 'sender_address' | 'fee_rate' | 'transfers'>,
  opts: { tokens: boolean },
): Omit<AddressTransactionWithTransfersResponse, 'tx'> {
  const transfers = row.transfers ?? [];
  const { sent, received } = stxMovedBy(principal, row, transfers);
  const out: Omit<AddressTransactionWithTransfersResponse, 'tx'> = {
    stx_sent: sent.toString(),
    stx_received: received.toString(),
    stx_transfers: transfers.filter(isStx).map((t) => ({ amount: t.amount ?? '0', ...parties(t) })),
  };
  if (!opts.tokens) return out;
  out.ft_transfers = transfers
    .filter((t) => t.type.startsWith('ft_'))
    .map((t) => ({ amount: t.amount ?? '0', asset_identifier: t.asset_identifier ?? '', ...parties(t) }));
  out.nft_transfers = transfers
    .filter((t) => t.type.startsWith('nft_'))
    .map((t) => ({ value: nftValue(t), asset_identifier: t.asset_identifier ?? '', ...parties(t) }));
  return out;
}

/** `{"tx": <tx text>, …rest}` as `JSON.stringify` writes the object with `tx` first: the text copied in unparsed. */
function withTxText(txText: string, rest: object): string {
  const tail = JSON.stringify(rest);
  return tail === '{}' ? `{"tx":${txText}}` : `{"tx":${txText},${tail.slice(1)}`;
}

export function toTxWithTransfersResponse(
  principal: string,
  row: DbTxWithTransfers,
  abis: ContractAbis,
  opts: { tokens: boolean },
): AddressTransactionWithTransfersResponse {
  return { tx: toTransactionResponse(row, [], abis), ...transfersOfItem(principal, row, opts) };
}

/** An item of `/transactions_with_transfers` as JSON text, with the transaction's kept list text (ADR 0035). */
export function toTxWithTransfersJson(principal: string, row: DbKeptTxWithTransfers & { json: string }): string {
  return withTxText(row.json, transfersOfItem(principal, row, { tokens: true }));
}

type EventCounts = { transfer: number; mint: number; burn: number };

/** An item of `/extended/v2/addresses/{address}/transactions`. */
interface AddressTransactionResponse {
  tx: TransactionResponse;
  stx_sent: string;
  stx_received: string;
  events: { stx: EventCounts; ft: EventCounts; nft: EventCounts };
}

/**
 * The v2 summary of a transaction for the principal as JSON text (`AddressTransactionResponse`, the transaction's kept
 * list text copied in), as the reference API's `principal_txs` holds it: STX sent is the fee when it pays it (the
 * sponsor of a sponsored transaction, else its origin) plus its STX events as sender; each of its asset events counts
 * once for it as sender and once as recipient.
 */
export function toAddressTransactionJson(
  principal: string,
  row: DbKeptTxWithTransfers & { json: string },
  excludeFunctionArgs: boolean,
): string {
  const transfers = row.transfers ?? [];
  const payer = row.sponsored && row.sponsor_address ? row.sponsor_address : row.sender_address;
  let sent = payer === principal ? BigInt(row.fee_rate) : 0n;
  let received = 0n;
  const zero = (): EventCounts => ({ transfer: 0, mint: 0, burn: 0 });
  const events = { stx: zero(), ft: zero(), nft: zero() };
  for (const t of transfers) {
    const [family, action] = t.type.replace(/_event$/, '').split('_') as ['stx' | 'ft' | 'nft', keyof EventCounts];
    const parties = (t.sender === principal ? 1 : 0) + (t.recipient === principal ? 1 : 0);
    events[family][action] += parties;
    if (family !== 'stx') continue;
    if (t.sender === principal) sent += BigInt(t.amount ?? '0');
    if (t.recipient === principal) received += BigInt(t.amount ?? '0');
  }
  const tx = excludeFunctionArgs ? JSON.stringify(withoutFunctionArgs(JSON.parse(row.json) as object)) : row.json;
  const rest: Omit<AddressTransactionResponse, 'tx'> = { stx_sent: sent.toString(), stx_received: received.toString(), events };
  return withTxText(tx, rest);
}

/** The cursor of a transaction in the v2 list: `<index block hash>:<microblock sequence>:<tx index>`. */
export function txCursor(row: Pick<DbKeptTxWithTransfers, 'index_block_hash' | 'microblock_sequence' | 'tx_index'>): string {
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
