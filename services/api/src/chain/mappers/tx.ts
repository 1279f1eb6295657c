import type { DbEvent } from '@bda/db';
import type {
  BaseTransactionResponse,
  FunctionArgResponse,
  MempoolTransactionResponse,
  MempoolTxStatus,
  MinedTxStatus,
  PostConditionResponse,
  TenureChangeCause,
  TransactionMetadataResponse,
  TransactionResponse,
} from '../../api-types';
import { clarityValueView } from '../../codec';
import type { ContractAbis } from '../datastore/contract-abis';
import type { DbMempoolTxRow } from '../datastore/mempool';
import type { DbTxRow } from '../datastore/txs';
import { namedFromAbi } from './contract-abi';
import { toEventResponses } from './event';
import { int, isoToUnix, str, strOrNull, unixToIso } from '../../mappers/row-values';

/** `microblock_sequence` of a transaction mined in an anchored block (int4 max), as the reference API shows it. */
const ANCHORED_MICROBLOCK_SEQUENCE = 2147483647;

/** Thrown for a row the api cannot represent (an indexer/api mismatch, a 500 — never bad input). */
export class UnexpectedRowError extends Error {}

function functionArgs(raw: unknown): FunctionArgResponse[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((a: Record<string, unknown>) => ({
    hex: str(a, 'hex'),
    repr: str(a, 'repr'),
    name: str(a, 'name'),
    type: str(a, 'type'),
  }));
}

/**
 * The reference builds `function_signature` from the called contract's ABI, and makes it `''` without one. A
 * contract-call transaction can only call a public function, so the signature follows from the arguments' names:
 * given by the ABI (`fromAbi`, which also covers a function without arguments) or stored with the arguments.
 * Otherwise it is `''`, for a call without arguments too: it has no stored names to show that the ABI was known.
 */
export function functionSignature(functionName: string, args: FunctionArgResponse[], fromAbi: boolean): string {
  const abiKnown = fromAbi || args.length > 0;
  if (!abiKnown || args.some((a) => a.name === '')) return '';
  return `(define-public (${functionName} ${args.map((a) => `(${a.name} ${a.type})`).join(' ')}))`;
}

/** The type-specific part of a transaction from its stored `type_id` and `payload` jsonb. */
export function toTxMetadata(typeId: string, payload: Record<string, unknown>, abis?: ContractAbis): TransactionMetadataResponse {
  switch (typeId) {
    case 'token_transfer':
      return {
        tx_type: 'token_transfer',
        token_transfer: {
          recipient_address: str(payload, 'recipient_address'),
          amount: str(payload, 'amount', '0'),
          memo: str(payload, 'memo', '0x'),
        },
      };
    case 'smart_contract': {
      const version = payload['clarity_version'];
      return {
        tx_type: 'smart_contract',
        smart_contract: {
          clarity_version: typeof version === 'number' ? version : null,
          contract_id: str(payload, 'contract_id'),
          source_code: str(payload, 'source_code'),
        },
      };
    }
    case 'contract_call': {
      const fn = str(payload, 'function_name');
      const contractId = str(payload, 'contract_id');
      const stored = functionArgs(payload['function_args']);
      const named = namedFromAbi(stored, fn, abis?.get(contractId));
      const args = named ?? stored;
      return {
        tx_type: 'contract_call',
        contract_call: {
          contract_id: contractId,
          function_name: fn,
          function_signature: functionSignature(fn, args, named !== null),
          function_args: args,
        },
      };
    }
    case 'poison_microblock':
      return {
        tx_type: 'poison_microblock',
        poison_microblock: {
          microblock_header_1: str(payload, 'microblock_header_1'),
          microblock_header_2: str(payload, 'microblock_header_2'),
        },
      };
    case 'coinbase':
      return {
        tx_type: 'coinbase',
        coinbase_payload: {
          data: str(payload, 'data'),
          alt_recipient: strOrNull(payload, 'alt_recipient'),
          vrf_proof: strOrNull(payload, 'vrf_proof'),
        },
      };
    case 'tenure_change':
      return {
        tx_type: 'tenure_change',
        tenure_change_payload: {
          tenure_consensus_hash: str(payload, 'tenure_consensus_hash'),
          prev_tenure_consensus_hash: str(payload, 'prev_tenure_consensus_hash'),
          burn_view_consensus_hash: str(payload, 'burn_view_consensus_hash'),
          previous_tenure_end: str(payload, 'previous_tenure_end'),
          previous_tenure_blocks: int(payload['previous_tenure_blocks'] as number | string | null | undefined),
          cause: str(payload, 'cause', 'block_found') as TenureChangeCause,
          pubkey_hash: str(payload, 'pubkey_hash'),
        },
      };
    default:
      throw new UnexpectedRowError(`transaction type ${JSON.stringify(typeId)} is unknown to the api`);
  }
}

type BaseRow = Pick<
  DbTxRow,
  | 'tx_id'
  | 'nonce'
  | 'sponsor_nonce'
  | 'fee_rate'
  | 'sender_address'
  | 'sponsor_address'
  | 'post_condition_mode'
  | 'post_conditions'
  | 'anchor_mode'
>;

function toBaseTx(row: BaseRow, sponsored: boolean): BaseTransactionResponse {
  const base: BaseTransactionResponse = {
    tx_id: row.tx_id,
    nonce: int(row.nonce),
    fee_rate: row.fee_rate,
    sender_address: row.sender_address,
    sponsored,
    post_condition_mode: row.post_condition_mode as BaseTransactionResponse['post_condition_mode'],
    post_conditions: Array.isArray(row.post_conditions) ? (row.post_conditions as PostConditionResponse[]) : [],
    anchor_mode: row.anchor_mode as BaseTransactionResponse['anchor_mode'],
  };
  if (sponsored && row.sponsor_address) base.sponsor_address = row.sponsor_address;
  // Null for a row written before the column existed: left out then, as for a transaction that is not sponsored.
  if (sponsored && row.sponsor_nonce != null) base.sponsor_nonce = int(row.sponsor_nonce);
  return base;
}

/**
 * A canonical mined transaction in the reference API's shape, with `events` (one page of them; empty in lists,
 * as the reference's lists are). Times fall back like the reference: `block_time` to the burn block time.
 */
export function toTransactionResponse(row: DbTxRow, events: DbEvent[] = [], abis?: ContractAbis): TransactionResponse {
  const burnBlockTime = int(row.burn_block_time);
  const ownTime = int(row.block_time);
  const blockTime = ownTime > 0 ? ownTime : burnBlockTime;
  const parentBurnBlockTime = int(row.parent_burn_block_time);
  return {
    ...toBaseTx(row, row.sponsored),
    block_hash: row.block_hash,
    block_height: row.block_height,
    block_time: blockTime,
    block_time_iso: unixToIso(blockTime),
    burn_block_time: burnBlockTime,
    burn_block_time_iso: unixToIso(burnBlockTime),
    burn_block_height: row.burn_block_height,
    parent_block_hash: row.parent_block_hash ?? '',
    parent_burn_block_time: parentBurnBlockTime,
    parent_burn_block_time_iso: unixToIso(parentBurnBlockTime),
    canonical: row.canonical,
    tx_index: row.tx_index,
    tx_status: row.status as MinedTxStatus,
    tx_result: clarityValueView(row.raw_result),
    event_count: row.event_count,
    is_unanchored: false,
    microblock_hash: row.microblock_hash ?? '',
    microblock_sequence: row.microblock_sequence ?? ANCHORED_MICROBLOCK_SEQUENCE,
    // Rows of `txs` are confirmed by their anchored block: a transaction of an orphaned microblock never gets one.
    microblock_canonical: true,
    execution_cost_read_count: int(row.execution_cost_read_count),
    execution_cost_read_length: int(row.execution_cost_read_length),
    execution_cost_runtime: int(row.execution_cost_runtime),
    execution_cost_write_count: int(row.execution_cost_write_count),
    execution_cost_write_length: int(row.execution_cost_write_length),
    vm_error: row.vm_error ?? null,
    events: toEventResponses(events),
    ...toTxMetadata(row.type_id, row.payload, abis),
  };
}

const DROPPED_STATUSES = new Set<MempoolTxStatus>([
  'dropped_replace_by_fee',
  'dropped_replace_across_fork',
  'dropped_too_expensive',
  'dropped_stale_garbage_collect',
  'dropped_problematic',
]);

/**
 * The reference API's `exclude_function_args=true` when `exclude` is set: a contract call without its
 * `function_args` (the signature stays), for clients that list many transactions and never show the arguments.
 */
export function withoutFunctionArgs<T extends object>(tx: T, exclude = true): T {
  const call = (tx as { contract_call?: { function_args?: unknown } }).contract_call;
  if (!exclude || !call || call.function_args === undefined) return tx;
  const { function_args: _dropped, ...rest } = call;
  return { ...tx, contract_call: rest };
}

/**
 * The mempool status as clients see it. `mined` shows as `pending`: a row only reads `mined` here when the block
 * that mined it was applied between the api's two lookups (or is not canonical any more), and the reference shows
 * such transactions as pending too. A drop for a reason the reference has no name for (stored as `dropped_unknown`:
 * a node reason newer than this api, or none) shows as `dropped_stale_garbage_collect`, the reference's own catch-all
 * for drops outside the node's named reasons, so that clients with a closed set of statuses can read it.
 */
export function toMempoolStatus(status: string): MempoolTxStatus {
  if (status === 'pending' || status === 'mined') return 'pending';
  if (DROPPED_STATUSES.has(status as MempoolTxStatus)) return status as MempoolTxStatus;
  return 'dropped_stale_garbage_collect';
}

export function toMempoolTransactionResponse(row: DbMempoolTxRow, abis?: ContractAbis): MempoolTransactionResponse {
  const receiptTime = isoToUnix(row.receipt_time);
  return {
    ...toBaseTx(row, row.sponsor_address !== null),
    tx_status: toMempoolStatus(row.status),
    replaced_by_tx_id: row.replaced_by_tx_id ?? null,
    receipt_time: receiptTime,
    receipt_time_iso: unixToIso(receiptTime),
    ...toTxMetadata(row.type_id, row.payload, abis),
  };
}
