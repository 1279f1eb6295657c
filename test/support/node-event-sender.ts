import { createHash } from 'node:crypto';
import { expect } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { decodeTransaction } from '@bda/stacks-codec';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from './fixtures';
import type { TestSystem } from './test-system';

/**
 * What the e2e suites of made-up node events share: ids derived from labels, a recorded token transfer to copy, and
 * posting events through the observer with a check that none was dead-lettered.
 */

/** A 32-byte (or `bytes`-byte) hex id derived from a label: distinct labels give distinct ids, the same label the same. */
export function hashOf(label: string, bytes = 32): string {
  return `0x${createHash('sha256')
    .update(label)
    .digest('hex')
    .slice(0, bytes * 2)}`;
}

/** A raw transaction and its txid (sha512/256 of its bytes, as the node computes it). */
export interface RawTx {
  txid: string;
  raw: string;
}

export function rawTxOf(hex: string): RawTx {
  return { txid: `0x${createHash('sha512-256').update(Buffer.from(hex, 'hex')).digest('hex')}`, raw: `0x${hex}` };
}

/** A recorded token transfer (from the fuzzed fixture's mempool event), its sender and its recipient. */
const TRANSFER_TEMPLATE_RAW = (
  JSON.parse(loadFixture('fuzzed-transactions-1.tsv').find((e) => e.path === '/new_mempool_tx')!.body) as string[]
)[0]!;
const TEMPLATE = decodeTransaction(TRANSFER_TEMPLATE_RAW);
export const SENDER = TEMPLATE.senderAddress;
export const RECIPIENT = (TEMPLATE.payload as { recipient: string }).recipient;

/**
 * The recorded transfer (SENDER → RECIPIENT, 1000 µSTX) with another nonce: a transaction of its own txid. The indexer
 * decodes, it does not check signatures.
 */
export function transferWithNonce(nonce: bigint): RawTx {
  const hex = TRANSFER_TEMPLATE_RAW.slice(2);
  // version (1) + chain id (4) + auth type (1) + hash mode (1) + signer (20) = 27 bytes, then the 8-byte nonce.
  return rawTxOf(hex.slice(0, 54) + nonce.toString(16).padStart(16, '0') + hex.slice(70));
}

export const ZERO_HASH = `0x${'00'.repeat(32)}`;
export const MAX_U128 = '340282366920938463463374607431768211455';

/** What a block's child needs of it. */
export interface BlockRef {
  index_block_hash: string;
  block_hash: string;
  block_height: number;
}

/** A node event of a block (`events[]` of `/new_block`), its type's own object beside the common fields. */
export type NodeEventBody = { txid: string; event_index: number; committed: boolean; type: string } & Record<string, unknown>;

/** A matured miner reward of a `/new_block` (`matured_miner_rewards[]`), amounts as decimal strings. */
export interface MinerReward {
  from_index_consensus_hash: string;
  from_stacks_block_hash: string;
  recipient: string;
  miner_address?: string | null;
  coinbase_amount: string;
  tx_fees_anchored: string;
  tx_fees_streamed_confirmed: string;
  tx_fees_streamed_produced: string;
}

/** An STX transfer event SENDER → RECIPIENT (1000 µSTX unless given). */
export function transferEvent(txid: string, eventIndex: number, amount = '1000'): NodeEventBody {
  return {
    txid,
    event_index: eventIndex,
    committed: true,
    type: 'stx_transfer_event',
    stx_transfer_event: { sender: SENDER, recipient: RECIPIENT, amount, memo: '00' },
  };
}

/** A transaction entry of a `/new_block` (`transactions[]`), as the node sends it. */
export type NodeTxBody = {
  txid: string;
  raw_tx: string;
  raw_result: string;
  status: string;
  tx_index: number;
  execution_cost: { read_count: number; read_length: number; runtime: number; write_count: number; write_length: number };
  microblock_hash: string | null;
  microblock_sequence: number | null;
  microblock_parent_hash: string | null;
} & Record<string, unknown>;

/** A microblock a transaction was mined in: its hash, sequence and parent hash. */
export interface MicroblockRef {
  hash: string;
  sequence: number;
  parent: string;
}

/**
 * A successful transaction entry at `txIndex`, anchored unless `micro` names its microblock; `extra` overrides or adds
 * fields (a failed status, a contract ABI, unknown fields).
 */
export function minedTx(t: RawTx, txIndex: number, micro?: MicroblockRef, extra: Record<string, unknown> = {}): NodeTxBody {
  return {
    txid: t.txid,
    raw_tx: t.raw,
    raw_result: '0x0703',
    status: 'success',
    tx_index: txIndex,
    contract_abi: null,
    execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
    microblock_hash: micro?.hash ?? null,
    microblock_sequence: micro?.sequence ?? null,
    microblock_parent_hash: micro?.parent ?? null,
    ...extra,
  };
}

/** What a made-up `/new_block` carries beyond its place in the chain. */
export interface NewBlockOptions {
  /** Its transactions, as the node sends them. */
  txs?: unknown[];
  events?: NodeEventBody[];
  rewards?: MinerReward[];
  /** The parent's last microblock this block confirms (none by default). */
  confirms?: { hash: string; sequence: number };
  /** More top-level fields (Nakamoto fields, unknown ones). */
  extra?: Record<string, unknown>;
}

/** A Stacks 2.x `/new_block` body for a child of `parent`, its hashes derived from `label`. */
export function newBlockBody(
  label: string,
  parent: BlockRef,
  opts: NewBlockOptions = {},
): { ref: BlockRef; body: Record<string, unknown> } {
  const ref = {
    index_block_hash: hashOf(`index ${label}`),
    block_hash: hashOf(`block ${label}`),
    block_height: parent.block_height + 1,
  };
  const burnHeight = 1_000 + ref.block_height;
  return {
    ref,
    body: {
      ...ref,
      parent_index_block_hash: parent.index_block_hash,
      parent_block_hash: parent.block_hash,
      parent_microblock: opts.confirms?.hash ?? ZERO_HASH,
      parent_microblock_sequence: opts.confirms?.sequence ?? 0,
      burn_block_hash: hashOf(`burn ${label}`),
      burn_block_height: burnHeight,
      burn_block_time: 1_700_000_000 + ref.block_height,
      parent_burn_block_hash: hashOf(`burn parent ${label}`),
      parent_burn_block_height: burnHeight - 1,
      parent_burn_block_timestamp: 1_699_999_999 + ref.block_height,
      miner_txid: hashOf(`miner ${label}`),
      transactions: opts.txs ?? [],
      events: opts.events ?? [],
      matured_miner_rewards: opts.rewards ?? [],
      ...opts.extra,
    },
  };
}

let eventId = 0;

/**
 * Posts the events in order through the observer, as a node does (each answered 200); `serialize` writes a body
 * (JSON.stringify unless given).
 */
export async function postNodeEvents(
  sys: TestSystem,
  events: Array<[path: string, body: unknown]>,
  serialize: (body: unknown) => string = JSON.stringify,
): Promise<void> {
  await replayEvents(
    events.map(([path, body]) => ({ id: String(++eventId), receivedAt: '2024-01-01 00:00:00+00', path, body: serialize(body) })),
    { observerUrl: sys.observerUrl, maxRetryMs: 30_000 },
  );
}

/** The id of the newest dead letter so far (0 when none): a case checks only what came after its own start. */
export async function deadLetterMark(sys: TestSystem): Promise<number> {
  const row = (await sys.db('dead_letters').max({ id: 'id' }).first()) as { id: string | null } | undefined;
  return Number(row?.id ?? 0);
}

export async function expectNoDeadLetterSince(sys: TestSystem, mark: number): Promise<void> {
  const dead: Array<{ path: string | null; reason: string }> = await sys
    .db('dead_letters')
    .where('id', '>', mark)
    .orderBy('id')
    .select('path', 'reason');
  expectMessage(`dead-lettered:\n${dead.map((d) => `${d.path}: ${d.reason.slice(0, 600)}`).join('\n')}`, () =>
    expect(dead).toEqual([]),
  );
}
