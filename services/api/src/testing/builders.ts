/**
 * Small builders for the indexer's rows, so a test states only what it is about:
 * `new BlockRowBuilder().height(5).canonical(false).build()`. Hashes are deterministic (derived from the height
 * and a fork tag), so a test can predict them.
 */
import { createHash } from 'node:crypto';
import type { DbAddressTx, DbBlock, DbEvent, DbMempoolTx, DbTx } from '@bda/db';
import { encodeStacksAddress } from '@bda/stacks-codec';

/** `0x` + 64 hex digits derived from the parts. */
export function hash32(...parts: Array<string | number>): string {
  return `0x${createHash('sha256').update(parts.join('/')).digest('hex')}`;
}

/** A valid mainnet single-sig address (SP…) derived from a seed. */
export function testAddress(seed: string | number, version = 22): string {
  return encodeStacksAddress(version, createHash('sha256').update(String(seed)).digest('hex').slice(0, 40));
}

/** Serialized Clarity values used in tests, with their reference `repr`. */
export const CV = {
  okTrue: { hex: '0x0703', repr: '(ok true)' },
  u100: { hex: '0x0100000000000000000000000000000064', repr: 'u100' },
  errU3: { hex: '0x080100000000000000000000000000000003', repr: '(err u3)' },
  asciiHi: { hex: '0x0d000000026869', repr: '"hi"' },
} as const;

const BURN_TIME_BASE = 1_700_000_000;

export class BlockRowBuilder {
  private fork = 'main';
  private overrides: Partial<DbBlock> = {};
  private h = 1;

  height(height: number): this {
    this.h = height;
    return this;
  }

  /** Blocks with different fork tags at one height get different hashes (a competing branch). */
  forkTag(tag: string): this {
    this.fork = tag;
    return this;
  }

  canonical(canonical: boolean): this {
    this.overrides.canonical = canonical;
    return this;
  }

  /** Parent = the block at height-1 of the given fork tag (default: same tag). */
  parentFork(tag: string): this {
    this.overrides.parent_index_block_hash = hash32('index', this.h - 1, tag);
    this.overrides.parent_block_hash = hash32('block', this.h - 1, tag);
    return this;
  }

  nakamoto(opts: { blockTime: number; tenureHeight: number | null }): this {
    this.overrides.block_time = String(opts.blockTime);
    this.overrides.tenure_height = opts.tenureHeight;
    this.overrides.signer_bitvec = '0x01000000';
    return this;
  }

  with(fields: Partial<DbBlock>): this {
    Object.assign(this.overrides, fields);
    return this;
  }

  build(): DbBlock {
    const h = this.h;
    return {
      index_block_hash: hash32('index', h, this.fork),
      block_hash: hash32('block', h, this.fork),
      block_height: h,
      parent_index_block_hash: hash32('index', h - 1, this.fork),
      parent_block_hash: hash32('block', h - 1, this.fork),
      parent_microblock_hash: `0x${'00'.repeat(32)}`,
      parent_microblock_sequence: 0,
      burn_block_hash: hash32('burn', h, this.fork),
      burn_block_height: 800_000 + h,
      burn_block_time: String(BURN_TIME_BASE + h * 600),
      block_time: null,
      miner_txid: hash32('miner', h, this.fork),
      tenure_height: null,
      cycle_number: null,
      pox_v1_unlock_height: null,
      pox_v2_unlock_height: null,
      pox_v3_unlock_height: null,
      signer_bitvec: null,
      signer_signature: null,
      tx_count: 1,
      execution_cost_read_count: String(h),
      execution_cost_read_length: String(h * 10),
      execution_cost_runtime: String(h * 100),
      execution_cost_write_count: String(h * 2),
      execution_cost_write_length: String(h * 20),
      canonical: true,
      ...this.overrides,
    };
  }
}

let txCounter = 0;

export class TxRowBuilder {
  private row: DbTx;

  constructor(seed: string | number = ++txCounter) {
    this.row = {
      tx_id: hash32('tx', seed),
      index_block_hash: hash32('index', 1, 'main'),
      block_hash: hash32('block', 1, 'main'),
      block_height: 1,
      burn_block_time: String(BURN_TIME_BASE + 600),
      block_time: null,
      burn_block_height: 800_001,
      parent_index_block_hash: hash32('index', 0, 'main'),
      tx_index: 0,
      raw_tx: Buffer.from('00', 'hex'),
      type_id: 'token_transfer',
      status: 'success',
      raw_result: CV.okTrue.hex,
      vm_error: null,
      sender_address: testAddress('sender'),
      sponsor_address: null,
      sponsored: false,
      nonce: '0',
      sponsor_nonce: null,
      fee_rate: '180',
      anchor_mode: 'any',
      post_condition_mode: 'deny',
      post_conditions: [],
      payload: { recipient_address: testAddress('recipient'), amount: '1000', memo: `0x${'00'.repeat(34)}` },
      contract_id: null,
      contract_abi: null,
      burnchain_op: null,
      execution_cost_read_count: '0',
      execution_cost_read_length: '0',
      execution_cost_runtime: '0',
      execution_cost_write_count: '0',
      execution_cost_write_length: '0',
      microblock_hash: null,
      microblock_sequence: null,
      microblock_parent_hash: null,
      event_count: 0,
      canonical: true,
    };
  }

  /** Places the transaction in a block (hashes, heights, times and canonical flag from it). */
  inBlock(block: DbBlock): this {
    Object.assign(this.row, {
      index_block_hash: block.index_block_hash,
      block_hash: block.block_hash,
      block_height: block.block_height,
      burn_block_time: block.burn_block_time,
      block_time: block.block_time,
      burn_block_height: block.burn_block_height,
      parent_index_block_hash: block.parent_index_block_hash,
      canonical: block.canonical,
    });
    return this;
  }

  id(txId: string): this {
    this.row.tx_id = txId;
    return this;
  }

  index(txIndex: number): this {
    this.row.tx_index = txIndex;
    return this;
  }

  sender(address: string): this {
    this.row.sender_address = address;
    return this;
  }

  canonical(canonical: boolean): this {
    this.row.canonical = canonical;
    return this;
  }

  tokenTransfer(recipient: string, amount = '1000'): this {
    this.row.type_id = 'token_transfer';
    this.row.payload = { recipient_address: recipient, amount, memo: `0x${'00'.repeat(34)}` };
    this.row.contract_id = null;
    return this;
  }

  contractCall(
    contractId: string,
    functionName: string,
    args: Array<{ hex: string; repr: string; name: string | null; type: string }>,
  ): this {
    this.row.type_id = 'contract_call';
    this.row.payload = { contract_id: contractId, function_name: functionName, function_args: args };
    this.row.contract_id = contractId;
    return this;
  }

  smartContract(contractId: string, sourceCode = '(define-public (hello) (ok true))', clarityVersion: number | null = 2): this {
    this.row.type_id = 'smart_contract';
    this.row.payload = { contract_id: contractId, source_code: sourceCode, clarity_version: clarityVersion };
    this.row.contract_id = contractId;
    return this;
  }

  coinbase(opts: { altRecipient?: string | null; vrfProof?: string | null } = {}): this {
    this.row.type_id = 'coinbase';
    this.row.payload = {
      data: `0x${'00'.repeat(32)}`,
      alt_recipient: opts.altRecipient ?? null,
      vrf_proof: opts.vrfProof ?? null,
    };
    return this;
  }

  tenureChange(): this {
    this.row.type_id = 'tenure_change';
    this.row.payload = {
      tenure_consensus_hash: `0x${'11'.repeat(20)}`,
      prev_tenure_consensus_hash: `0x${'22'.repeat(20)}`,
      burn_view_consensus_hash: `0x${'33'.repeat(20)}`,
      previous_tenure_end: `0x${'44'.repeat(32)}`,
      previous_tenure_blocks: 7,
      cause: 'block_found',
      pubkey_hash: `0x${'55'.repeat(20)}`,
    };
    return this;
  }

  poisonMicroblock(): this {
    this.row.type_id = 'poison_microblock';
    this.row.payload = { microblock_header_1: `0x${'aa'.repeat(20)}`, microblock_header_2: `0x${'bb'.repeat(20)}` };
    return this;
  }

  /** Sponsored by `address`, with the sponsor's nonce (as the indexer writes both). */
  sponsoredBy(address: string, sponsorNonce = '0'): this {
    this.row.sponsored = true;
    this.row.sponsor_address = address;
    this.row.sponsor_nonce = sponsorNonce;
    return this;
  }

  with(fields: Partial<DbTx>): this {
    Object.assign(this.row, fields);
    return this;
  }

  build(): DbTx {
    return { ...this.row };
  }
}

export class EventRowBuilder {
  private row: DbEvent;

  constructor() {
    this.row = {
      index_block_hash: hash32('index', 1, 'main'),
      event_index: 0,
      tx_id: hash32('tx', 'none'),
      tx_index: 0,
      block_height: 1,
      type: 'stx_transfer_event',
      committed: true,
      asset_identifier: null,
      sender: testAddress('sender'),
      recipient: testAddress('recipient'),
      amount: '1000',
      memo: null,
      value_hex: null,
      value_repr: null,
      contract_identifier: null,
      topic: null,
      locked_amount: null,
      unlock_height: null,
      locked_address: null,
      canonical: true,
    };
  }

  /** The event belongs to this (mined) transaction: same block, index and canonical flag. */
  forTx(tx: DbTx): this {
    Object.assign(this.row, {
      index_block_hash: tx.index_block_hash,
      tx_id: tx.tx_id,
      tx_index: tx.tx_index,
      block_height: tx.block_height,
      canonical: tx.canonical,
    });
    return this;
  }

  index(eventIndex: number): this {
    this.row.event_index = eventIndex;
    return this;
  }

  private kind(type: string, fields: Partial<DbEvent>): this {
    Object.assign(this.row, {
      type,
      asset_identifier: null,
      sender: null,
      recipient: null,
      amount: null,
      memo: null,
      value_hex: null,
      value_repr: null,
      contract_identifier: null,
      topic: null,
      locked_amount: null,
      unlock_height: null,
      locked_address: null,
      ...fields,
    });
    return this;
  }

  stxTransfer(sender: string, recipient: string, amount: string, memo: string | null = null): this {
    return this.kind('stx_transfer_event', { sender, recipient, amount, memo });
  }

  stxMint(recipient: string, amount: string): this {
    return this.kind('stx_mint_event', { recipient, amount });
  }

  stxBurn(sender: string, amount: string): this {
    return this.kind('stx_burn_event', { sender, amount });
  }

  stxLock(lockedAddress: string, amount: string, unlockHeight: number): this {
    return this.kind('stx_lock_event', {
      locked_address: lockedAddress,
      locked_amount: amount,
      unlock_height: String(unlockHeight),
      contract_identifier: 'SP000000000000000000002Q6VF78.pox-4',
    });
  }

  ftTransfer(asset: string, sender: string, recipient: string, amount: string): this {
    return this.kind('ft_transfer_event', { asset_identifier: asset, sender, recipient, amount });
  }

  ftMint(asset: string, recipient: string, amount: string): this {
    return this.kind('ft_mint_event', { asset_identifier: asset, recipient, amount });
  }

  nftMint(asset: string, recipient: string, value: { hex: string; repr: string | null }): this {
    return this.kind('nft_mint_event', { asset_identifier: asset, recipient, value_hex: value.hex, value_repr: value.repr });
  }

  nftBurn(asset: string, sender: string, value: { hex: string; repr: string | null }): this {
    return this.kind('nft_burn_event', { asset_identifier: asset, sender, value_hex: value.hex, value_repr: value.repr });
  }

  contractLog(contractId: string, value: { hex: string; repr: string | null }, topic = 'print'): this {
    return this.kind('contract_event', { contract_identifier: contractId, topic, value_hex: value.hex, value_repr: value.repr });
  }

  canonical(canonical: boolean): this {
    this.row.canonical = canonical;
    return this;
  }

  with(fields: Partial<DbEvent>): this {
    Object.assign(this.row, fields);
    return this;
  }

  build(): DbEvent {
    return { ...this.row };
  }
}

let mempoolCounter = 0;

export class MempoolTxRowBuilder {
  private row: DbMempoolTx;

  constructor(seed: string | number = `mempool-${++mempoolCounter}`) {
    this.row = {
      tx_id: hash32('tx', seed),
      raw_tx: Buffer.from('00', 'hex'),
      type_id: 'token_transfer',
      sender_address: testAddress('mempool-sender'),
      sponsor_address: null,
      nonce: '5',
      sponsor_nonce: null,
      fee_rate: '300',
      payload: { recipient_address: testAddress('recipient'), amount: '25', memo: `0x${'00'.repeat(34)}` },
      post_conditions: [],
      post_condition_mode: 'deny',
      anchor_mode: 'any',
      contract_id: null,
      status: 'pending',
      replaced_by_tx_id: null,
      receipt_time: '2024-05-01T12:00:00.000Z',
      receipt_block_height: null,
    };
  }

  id(txId: string): this {
    this.row.tx_id = txId;
    return this;
  }

  sender(address: string): this {
    this.row.sender_address = address;
    return this;
  }

  status(status: string, replacedBy: string | null = null): this {
    this.row.status = status;
    this.row.replaced_by_tx_id = replacedBy;
    return this;
  }

  receivedAt(iso: string): this {
    this.row.receipt_time = iso;
    return this;
  }

  /** Sponsored by `address`, with the sponsor's nonce (as the indexer writes both). */
  sponsoredBy(address: string, sponsorNonce = '0'): this {
    this.row.sponsor_address = address;
    this.row.sponsor_nonce = sponsorNonce;
    return this;
  }

  with(fields: Partial<DbMempoolTx>): this {
    Object.assign(this.row, fields);
    return this;
  }

  build(): DbMempoolTx {
    return { ...this.row };
  }
}

/** The `address_txs` row for a mined transaction and one of its parties. */
export function addressTxRow(address: string, tx: DbTx): DbAddressTx {
  return {
    address,
    block_height: tx.block_height,
    microblock_sequence: tx.microblock_sequence ?? 2147483647,
    tx_index: tx.tx_index,
    tx_id: tx.tx_id,
    index_block_hash: tx.index_block_hash,
  };
}
