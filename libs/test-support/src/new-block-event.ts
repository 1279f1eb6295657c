import { createHash } from 'node:crypto';

/** What identifies a Stacks block to its children. */
export interface BlockRef {
  index_block_hash: string;
  block_hash: string;
  block_height: number;
}

/** A transaction of a built block: its id and bytes, how it ended (success by default) and the events it emitted. */
export interface BlockEventTx {
  txid: string;
  raw: string;
  status?: 'success' | 'abort_by_response' | 'abort_by_post_condition';
  /** The Clarity result (`0x` hex); `(ok true)` for a success, `(err u3)` otherwise, when omitted. */
  rawResult?: string;
  /** Node events without `txid`, `event_index` and `committed`, which the builder numbers and sets. */
  events?: Array<Record<string, unknown>>;
}

/** `0x` + SHA-256 of a label: a stable 32-byte hash for built blocks. */
export function labelHash(label: string): string {
  return `0x${createHash('sha256').update(label).digest('hex')}`;
}

/** A parent for a chain's first block (height 0 then). */
export const BEFORE_GENESIS: BlockRef = {
  index_block_hash: labelHash('none'),
  block_hash: labelHash('none block'),
  block_height: -1,
};

/**
 * A Stacks 2.x `/new_block` body as a node posts it, on `parent`, with these transactions in order: hashes derived
 * from `label` (so two blocks of one label are the same block), burn block `1000 + height`, events numbered across the
 * block and committed when their transaction succeeded. `extra` adds or replaces top-level fields (reward sets,
 * signer fields…).
 */
export function newBlockEvent(
  label: string,
  parent: BlockRef,
  txs: readonly BlockEventTx[] = [],
  extra: Record<string, unknown> = {},
): { ref: BlockRef; body: Record<string, unknown> } {
  const ref = {
    index_block_hash: labelHash(`index ${label}`),
    block_hash: labelHash(`block ${label}`),
    block_height: parent.block_height + 1,
  };
  let eventIndex = 0;
  return {
    ref,
    body: {
      ...ref,
      parent_index_block_hash: parent.index_block_hash,
      parent_block_hash: parent.block_hash,
      parent_microblock: `0x${'00'.repeat(32)}`,
      parent_microblock_sequence: 0,
      burn_block_hash: labelHash(`burn ${label}`),
      burn_block_height: 1000 + ref.block_height,
      burn_block_time: 1_700_000_000 + ref.block_height,
      parent_burn_block_hash: labelHash(`burn parent ${label}`),
      parent_burn_block_height: 999 + ref.block_height,
      parent_burn_block_timestamp: 1_699_999_999 + ref.block_height,
      miner_txid: labelHash(`miner ${label}`),
      transactions: txs.map((tx, i) => {
        const status = tx.status ?? 'success';
        return {
          txid: tx.txid,
          raw_tx: tx.raw,
          raw_result: tx.rawResult ?? (status === 'success' ? '0x0703' : '0x080100000000000000000000000000000003'),
          status,
          tx_index: i,
          contract_abi: null,
          execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
          microblock_hash: null,
          microblock_sequence: null,
          microblock_parent_hash: null,
        };
      }),
      events: txs.flatMap((tx) =>
        (tx.events ?? []).map((e) => ({
          txid: tx.txid,
          event_index: eventIndex++,
          committed: (tx.status ?? 'success') === 'success',
          ...e,
        })),
      ),
      matured_miner_rewards: [],
      ...extra,
    },
  };
}
