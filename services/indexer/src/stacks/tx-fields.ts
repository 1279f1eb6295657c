import {
  decodeTransaction,
  synthesizeBurnchainTransaction,
  type DecodedTransaction,
  type TransactionPayload,
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
  fee_rate: string;
  anchor_mode: string;
  post_condition_mode: string;
  post_conditions: unknown[];
  payload: Record<string, unknown>;
  contract_id: string | null;
}

/**
 * Decodes a mined transaction's `raw_tx`; a `0x00` raw_tx (a Bitcoin burnchain operation) is
 * synthesized from its `burnchain_op` and the block's events.
 */
export function decodeTxFields(tx: NodeTx, blockEvents: NodeEvent[] = [], burnBlockHeight?: number): TxFields {
  const decoded = /^0x0{0,2}$/.test(tx.raw_tx)
    ? synthesizeBurnchainTransaction({ tx, events: blockEvents, burnBlockHeight })
    : decodeTransaction(tx.raw_tx);
  return toTxFields(decoded);
}

/** Decodes a raw transaction from the mempool. */
export function decodeRawTxFields(rawTx: string): TxFields & { tx_id: string } {
  const decoded = decodeTransaction(rawTx);
  return { ...toTxFields(decoded), tx_id: decoded.txId };
}

export function toTxFields(d: DecodedTransaction): TxFields {
  return {
    type_id: d.payload.typeId,
    sender_address: d.senderAddress,
    sponsor_address: d.sponsorAddress,
    sponsored: d.authType === 'sponsored',
    nonce: d.nonce.toString(),
    fee_rate: d.feeRate.toString(),
    anchor_mode: d.anchorMode,
    post_condition_mode: d.postConditionMode,
    post_conditions: d.postConditions,
    payload: payloadJson(d.payload),
    contract_id: contractIdOf(d.payload),
  };
}

function contractIdOf(p: TransactionPayload): string | null {
  if (p.typeId === 'smart_contract' || p.typeId === 'contract_call') return p.contractId;
  return null;
}

/** The stored payload, in the reference API's field names (the api serves it as is). */
function payloadJson(p: TransactionPayload): Record<string, unknown> {
  switch (p.typeId) {
    case 'token_transfer':
      return { recipient_address: p.recipient, amount: p.amount.toString(), memo: p.memoHex };
    case 'smart_contract':
      return { contract_id: p.contractId, source_code: p.sourceCode, clarity_version: p.clarityVersion };
    case 'contract_call':
      return {
        contract_id: p.contractId,
        function_name: p.functionName,
        function_args: p.functionArgs.map((a) => ({ hex: a.hex, repr: a.repr, name: null, type: a.typeSignature })),
      };
    case 'coinbase':
      return { data: p.payloadHex, alt_recipient: p.altRecipient, vrf_proof: p.vrfProofHex };
    case 'poison_microblock':
      return { microblock_header_1: p.microblockHeader1Hex, microblock_header_2: p.microblockHeader2Hex };
    case 'tenure_change':
      return {
        tenure_consensus_hash: p.tenureConsensusHash,
        prev_tenure_consensus_hash: p.prevTenureConsensusHash,
        burn_view_consensus_hash: p.burnViewConsensusHash,
        previous_tenure_end: p.previousTenureEnd,
        previous_tenure_blocks: p.previousTenureBlocks,
        cause: p.cause,
        pubkey_hash: p.pubkeyHash,
      };
  }
}

/** The decoded columns shared by `txs` and `mempool_txs`, ready to insert (jsonb as sanitized text). */
export function decodedColumns(f: TxFields) {
  return {
    type_id: f.type_id,
    sender_address: f.sender_address,
    sponsor_address: f.sponsor_address,
    nonce: f.nonce,
    fee_rate: f.fee_rate,
    anchor_mode: f.anchor_mode,
    post_condition_mode: f.post_condition_mode,
    post_conditions: toJsonText(f.post_conditions),
    payload: toJsonText(f.payload),
    contract_id: f.contract_id,
  };
}
