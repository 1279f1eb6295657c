import { decodeTransaction, type TransactionPayload } from '@bda/stacks-codec';
import type { TransactionResponse } from '../../api-types';
import type { DbUnanchoredTip, DbUnanchoredTxRow } from '../datastore/microblocks';
import type { DbTxRow } from '../datastore/txs';
import { toTransactionResponse } from './tx';

/**
 * The payload as `txs.payload` stores it (the indexer's `tx-fields.ts` writes the same fields from the same decoder),
 * so that the mined transactions' mapper reads it as it reads theirs.
 */
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

/**
 * A transaction streamed on the tip and not confirmed yet, decoded from its stored bytes, in the reference API's
 * `Transaction` shape as the reference shows such a one: at the height after the tip, `block_hash` `0x` (no block
 * yet), the tip's burn block, the tip as its parent, `is_unanchored` true, no execution costs (a microblock reports
 * none per transaction).
 */
export function toUnanchoredTransactionResponse(row: DbUnanchoredTxRow, tip: DbUnanchoredTip): TransactionResponse {
  const d = decodeTransaction(`0x${row.raw_tx.toString('hex')}`);
  const tx: DbTxRow = {
    tx_id: row.tx_id,
    index_block_hash: '0x',
    block_hash: '0x',
    block_height: tip.block_height + 1,
    burn_block_time: tip.burn_block_time,
    block_time: null,
    burn_block_height: tip.burn_block_height,
    parent_index_block_hash: tip.index_block_hash,
    tx_index: row.tx_index,
    type_id: d.payload.typeId,
    status: row.status,
    raw_result: row.raw_result,
    vm_error: null,
    sender_address: d.senderAddress,
    sponsor_address: d.sponsorAddress,
    sponsored: d.authType === 'sponsored',
    nonce: d.nonce.toString(),
    sponsor_nonce: d.sponsorNonce === null ? null : d.sponsorNonce.toString(),
    fee_rate: d.feeRate.toString(),
    anchor_mode: d.anchorMode,
    post_condition_mode: d.postConditionMode,
    post_conditions: d.postConditions,
    payload: payloadJson(d.payload),
    contract_id: d.payload.typeId === 'smart_contract' || d.payload.typeId === 'contract_call' ? d.payload.contractId : null,
    execution_cost_read_count: '0',
    execution_cost_read_length: '0',
    execution_cost_runtime: '0',
    execution_cost_write_count: '0',
    execution_cost_write_length: '0',
    microblock_hash: row.microblock_hash,
    microblock_sequence: row.microblock_sequence,
    microblock_parent_hash: row.microblock_parent_hash,
    event_count: row.event_count,
    canonical: true,
    parent_block_hash: tip.block_hash,
    parent_burn_block_time: tip.burn_block_time,
  };
  return { ...toTransactionResponse(tx), is_unanchored: true };
}
