import { decodeClarityValue } from '@bda/stacks-codec';
import type { DbTx } from '../db-types';
import { namedFromAbi } from './contract-abi';
import { int, str, strOrNull, unixToIso } from './row-values';

/**
 * The one rendering of a mined transaction in the reference API's `Transaction` shape, used by the api for every
 * answer and by the indexer for the list form it keeps (`tx_list_json`, migration 095, ADR 0035): both must give the
 * same text byte for byte, so neither has its own copy. Pure: a row (and the called contract's ABI) in, JSON out.
 */

/** `microblock_sequence` of a transaction mined in an anchored block (int4 max), as the reference API shows it. */
const ANCHORED_MICROBLOCK_SEQUENCE = 2147483647;

/** Thrown for a row the api cannot represent (an indexer/api mismatch, a 500 — never bad input). */
export class UnexpectedRowError extends Error {}

/** The ABI of each deployed contract some transactions call, by contract id (as the node reported it). */
export type ContractAbis = ReadonlyMap<string, unknown>;

/**
 * A mined transaction as rendered: the `txs` columns served (not the raw bytes, ABI or burnchain op) plus two facts
 * of the including block's parent, joined by primary key.
 */
export type DbTxJsonRow = Omit<DbTx, 'raw_tx' | 'contract_abi' | 'burnchain_op'> & {
  /** `block_hash` of the including block's parent (from `blocks`); null only if that row is missing. */
  parent_block_hash: string | null;
  /** Burn time of the parent block, Unix seconds; null for the first block or a missing parent row. */
  parent_burn_block_time: string | null;
};

export interface FunctionArgJson {
  hex: string;
  repr: string;
  name: string;
  type: string;
}

/** A Clarity value as the reference API shows it. */
export interface ClarityValueView {
  hex: string;
  repr: string;
}

/**
 * `{hex, repr}` of a hex-serialized Clarity value. Rows come from the indexer, which already decoded them once; if a
 * stored value cannot be decoded anyway, the hex is still shown and `repr` is empty rather than failing the request.
 */
export function clarityValueView(hex: string | null | undefined): ClarityValueView {
  if (!hex) return { hex: '', repr: '' };
  const normalized = hex.startsWith('0x') ? hex.toLowerCase() : `0x${hex.toLowerCase()}`;
  try {
    return { hex: normalized, repr: decodeClarityValue(normalized).repr };
  } catch {
    return { hex: normalized, repr: '' };
  }
}

function functionArgs(raw: unknown): FunctionArgJson[] {
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
export function functionSignature(functionName: string, args: FunctionArgJson[], fromAbi: boolean): string {
  const abiKnown = fromAbi || args.length > 0;
  if (!abiKnown || args.some((a) => a.name === '')) return '';
  return `(define-public (${functionName} ${args.map((a) => `(${a.name} ${a.type})`).join(' ')}))`;
}

/** The type-specific part of a transaction from its stored `type_id` and `payload` jsonb. */
export function toTxMetadataJson(typeId: string, payload: Record<string, unknown>, abis?: ContractAbis) {
  switch (typeId) {
    case 'token_transfer':
      return {
        tx_type: 'token_transfer' as const,
        token_transfer: {
          recipient_address: str(payload, 'recipient_address'),
          amount: str(payload, 'amount', '0'),
          memo: str(payload, 'memo', '0x'),
        },
      };
    case 'smart_contract': {
      const version = payload['clarity_version'];
      return {
        tx_type: 'smart_contract' as const,
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
        tx_type: 'contract_call' as const,
        contract_call: {
          contract_id: contractId,
          function_name: fn,
          function_signature: functionSignature(fn, args, named !== null),
          function_args: args as FunctionArgJson[] | undefined,
        },
      };
    }
    case 'poison_microblock':
      return {
        tx_type: 'poison_microblock' as const,
        poison_microblock: {
          microblock_header_1: str(payload, 'microblock_header_1'),
          microblock_header_2: str(payload, 'microblock_header_2'),
        },
      };
    case 'coinbase':
      return {
        tx_type: 'coinbase' as const,
        coinbase_payload: {
          data: str(payload, 'data'),
          alt_recipient: strOrNull(payload, 'alt_recipient'),
          vrf_proof: strOrNull(payload, 'vrf_proof'),
        },
      };
    case 'tenure_change':
      return {
        tx_type: 'tenure_change' as const,
        tenure_change_payload: {
          tenure_consensus_hash: str(payload, 'tenure_consensus_hash'),
          prev_tenure_consensus_hash: str(payload, 'prev_tenure_consensus_hash'),
          burn_view_consensus_hash: str(payload, 'burn_view_consensus_hash'),
          previous_tenure_end: str(payload, 'previous_tenure_end'),
          previous_tenure_blocks: int(payload['previous_tenure_blocks'] as number | string | null | undefined),
          cause: str(payload, 'cause', 'block_found'),
          pubkey_hash: str(payload, 'pubkey_hash'),
        },
      };
    default:
      throw new UnexpectedRowError(`transaction type ${JSON.stringify(typeId)} is unknown to the api`);
  }
}

/** What every transaction shows of itself, mined or not. */
export type DbBaseTxJsonRow = Pick<
  DbTxJsonRow,
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

export interface BaseTxJson {
  tx_id: string;
  nonce: number;
  fee_rate: string;
  sender_address: string;
  sponsored: boolean;
  sponsor_address?: string;
  sponsor_nonce?: number;
  post_condition_mode: string;
  post_conditions: unknown[];
  anchor_mode: string;
}

export function toBaseTxJson(row: DbBaseTxJsonRow, sponsored: boolean): BaseTxJson {
  const base: BaseTxJson = {
    tx_id: row.tx_id,
    nonce: int(row.nonce),
    fee_rate: row.fee_rate,
    sender_address: row.sender_address,
    sponsored,
    post_condition_mode: row.post_condition_mode,
    post_conditions: Array.isArray(row.post_conditions) ? (row.post_conditions as unknown[]) : [],
    anchor_mode: row.anchor_mode,
  };
  if (sponsored && row.sponsor_address) base.sponsor_address = row.sponsor_address;
  // Null for a row written before the column existed: left out then, as for a transaction that is not sponsored.
  if (sponsored && row.sponsor_nonce != null) base.sponsor_nonce = int(row.sponsor_nonce);
  return base;
}

/**
 * A mined transaction in the reference API's shape, with `events` as given (one page of them, already rendered;
 * empty in lists, as the reference's lists are). Times fall back like the reference: `block_time` to the burn block
 * time.
 */
export function toMinedTxJson<E>(row: DbTxJsonRow, events: E[] = [], abis?: ContractAbis) {
  const burnBlockTime = int(row.burn_block_time);
  const ownTime = int(row.block_time);
  const blockTime = ownTime > 0 ? ownTime : burnBlockTime;
  const parentBurnBlockTime = int(row.parent_burn_block_time);
  return {
    ...toBaseTxJson(row, row.sponsored),
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
    tx_status: row.status,
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
    events,
    ...toTxMetadataJson(row.type_id, row.payload, abis),
  };
}

/**
 * The list form of a canonical mined transaction as JSON text (`events: []`), as `tx_list_json` keeps it: what the
 * api's lists answer for the row while it is canonical (the lists serve canonical rows only, so the text says
 * `canonical: true` whatever the row's flag when it is written).
 */
export function minedTxListJson(row: DbTxJsonRow, abis?: ContractAbis): string {
  return JSON.stringify(toMinedTxJson({ ...row, canonical: true }, [], abis));
}
