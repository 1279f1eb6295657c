import {
  decodeTransaction,
  payloadContractId,
  payloadFields,
  synthesizeBurnchainTransaction,
  type DecodedTransaction,
} from '@bda/stacks-codec';
import type { NodeEvent, NodeTx } from './node-payloads';
import { toJsonText } from './sanitize';

/** The decoded columns of a `txs` / `mempool_txs` row. */
export interface TxFields {
  type_id: string;
  sender_address: string;
  sponsor_address: string | null;
  sponsored: boolean;
  nonce: string;
  /** The sponsor's nonce; null unless sponsored. */
  sponsor_nonce: string | null;
  fee_rate: string;
  anchor_mode: string;
  post_condition_mode: string;
  post_conditions: unknown[];
  payload: Record<string, unknown>;
  contract_id: string | null;
}

/** A transaction decoded: its fields, and its columns ready to insert. */
export interface DecodedTxColumns {
  fields: TxFields;
  columns: TxColumns;
}

/**
 * Decodes a mined transaction's `raw_tx`; a `0x00` raw_tx (a Bitcoin burnchain operation) is
 * synthesized from its `burnchain_op` and the block's events.
 */
export function decodeTxColumns(tx: NodeTx, blockEvents: NodeEvent[] = [], burnBlockHeight?: number): DecodedTxColumns {
  if (/^0x0{0,2}$/.test(tx.raw_tx)) {
    const fields = toTxFields(synthesizeBurnchainTransaction({ tx, events: blockEvents, burnBlockHeight }));
    return { fields, columns: decodedColumns(fields) };
  }
  return decodeRawTxColumns(tx.raw_tx);
}

/**
 * Decodes a raw transaction (from the mempool, or mined). A node announces most transactions to the mempool
 * before a block mines them, so the same bytes come twice: the most recent decodings are kept (frozen, shared by
 * both uses), up to `RECENT_ENTRIES` transactions and `RECENT_CHARS` characters of raw hex.
 */
export function decodeRawTxColumns(rawTx: string): DecodedTxColumns & { tx_id: string } {
  const hit = recent.get(rawTx);
  if (hit) return hit;
  const decoded = decodeTransaction(rawTx);
  const fields = toTxFields(decoded);
  const entry = Object.freeze({
    fields: Object.freeze(fields),
    columns: Object.freeze(decodedColumns(fields)),
    tx_id: decoded.txId,
  });
  remember(rawTx, entry);
  return entry;
}

const RECENT_ENTRIES = 4096;
// A decoded contract deploy holds its source about three times (raw hex, source, JSON text): about 25 MB at most.
const RECENT_CHARS = 8 * 1024 * 1024;
const recent = new Map<string, DecodedTxColumns & { tx_id: string }>();
let recentChars = 0;

function remember(rawTx: string, entry: DecodedTxColumns & { tx_id: string }): void {
  if (rawTx.length > RECENT_CHARS / 8) return; // a huge contract deploy would push out everything else
  recent.set(rawTx, entry);
  recentChars += rawTx.length;
  // A Map iterates in insertion order: the first key is the oldest.
  while (recent.size > RECENT_ENTRIES || recentChars > RECENT_CHARS) {
    const oldest = recent.keys().next().value as string;
    recent.delete(oldest);
    recentChars -= oldest.length;
  }
}

export function toTxFields(d: DecodedTransaction): TxFields {
  return {
    type_id: d.payload.typeId,
    sender_address: d.senderAddress,
    sponsor_address: d.sponsorAddress,
    sponsored: d.authType === 'sponsored',
    nonce: d.nonce.toString(),
    sponsor_nonce: d.sponsorNonce === null ? null : d.sponsorNonce.toString(),
    fee_rate: d.feeRate.toString(),
    anchor_mode: d.anchorMode,
    post_condition_mode: d.postConditionMode,
    post_conditions: d.postConditions,
    payload: payloadFields(d.payload),
    contract_id: payloadContractId(d.payload),
  };
}

/** The decoded columns shared by `txs` and `mempool_txs`, ready to insert (jsonb as sanitized text). */
type TxColumns = ReturnType<typeof decodedColumns>;

/** `f` as the columns of `TxColumns`. */
function decodedColumns(f: TxFields) {
  return {
    type_id: f.type_id,
    sender_address: f.sender_address,
    sponsor_address: f.sponsor_address,
    nonce: f.nonce,
    sponsor_nonce: f.sponsor_nonce,
    fee_rate: f.fee_rate,
    anchor_mode: f.anchor_mode,
    post_condition_mode: f.post_condition_mode,
    post_conditions: toJsonText(f.post_conditions),
    payload: toJsonText(f.payload),
    contract_id: f.contract_id,
  };
}
