import { decodeTransaction, payloadContractId, payloadFields } from '@bda/stacks-codec';
import type { TransactionResponse } from '../../api-types';
import type { DbUnanchoredTip, DbUnanchoredTxRow } from '../datastore/microblocks';
import type { DbTxRow } from '../datastore/txs';
import { toTransactionResponse } from './tx';

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
    payload: payloadFields(d.payload),
    contract_id: payloadContractId(d.payload),
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
