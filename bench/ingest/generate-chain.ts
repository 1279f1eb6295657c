import { randomBytes } from 'node:crypto';
import { decodeTransaction, txIdFromBytes } from '@bda/stacks-codec';
import type { RecordedEvent } from '@bda/observer';
import { loadFixture } from '../../test/support/fixtures';

/** Every recorded fixture, in the order the benches replay them (later files arrive as forks of a shared genesis). */
export const FIXTURE_FILES = [
  'mocknet.tsv',
  'mainnet-reorg-scenario1.tsv',
  'fuzzed-transactions-1.tsv',
  'mainnet-out-of-order-microblock.tsv',
  'epoch-3-transition.tsv',
];

/**
 * Material for `generateChain` from the recorded fixtures: up to 200 real STX-transfer transactions (most mainnet
 * traffic is transfers) and the principals their events name.
 */
export function fixtureTransferPool(): { transfers: PoolTransfer[] } {
  const blocks = FIXTURE_FILES.flatMap((f) => loadFixture(f))
    .filter((e) => e.path === '/new_block')
    .map((e) => JSON.parse(e.body) as { transactions: Array<{ raw_tx: string }> });
  const transfers: PoolTransfer[] = [];
  for (const raw of blocks.flatMap((b) => b.transactions.map((t) => t.raw_tx))) {
    if (raw.length <= 4 || transfers.length >= 200) continue;
    try {
      const tx = decodeTransaction(raw);
      if (tx.payload.typeId !== 'token_transfer') continue;
      transfers.push({
        rawTx: raw,
        sender: tx.senderAddress,
        recipient: tx.payload.recipient,
        amount: String(tx.payload.amount),
      });
    } catch {
      // not decodable: not in the pool
    }
  }
  return { transfers };
}

/** A recorded STX transfer: its raw bytes, and the parties and amount its `stx_transfer_event` names. */
export interface PoolTransfer {
  rawTx: string;
  sender: string;
  recipient: string;
  amount: string;
}

/**
 * A synthetic Stacks chain for load: `blocks` blocks of `txsPerBlock` STX transfers, each with its
 * `stx_transfer_event`. Raw transactions are real ones taken from the recorded fixtures (so decoding
 * does real work), each made unique by its memo, with the id a node would give it; each event names the sender,
 * recipient and amount of its transaction, as a node's does; block hashes are generated.
 */
export function generateChain(opts: {
  blocks: number;
  txsPerBlock: number;
  transfers: PoolTransfer[];
  /** Announce each block's transactions first with a `/new_mempool_tx`, as a node does on mainnet. */
  mempool?: boolean;
}): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const hex = (n: number) => `0x${randomBytes(n).toString('hex')}`;
  let parentIndex = `0x${'00'.repeat(32)}`;
  let parentHash = parentIndex;
  const pick = <T>(xs: T[], i: number) => xs[i % xs.length]!;
  for (let h = 1; h <= opts.blocks; h++) {
    const index = hex(32);
    const blockHash = hex(32);
    const txs = [];
    const evs = [];
    for (let i = 0; i < opts.txsPerBlock; i++) {
      const transfer = pick(opts.transfers, h * 31 + i);
      // Each transaction its own: the pool's transfer with a memo naming its block and position (a transfer's
      // payload ends with its 34-byte memo), and the id a node gives it, the hash of its bytes. The mempool
      // announcement and the block then name the same transaction, as on a real chain. (The signature no longer
      // matches; nothing here verifies it.)
      const raw = Buffer.from(transfer.rawTx.slice(2), 'hex');
      raw.write(`${h}:${i}`.padEnd(34, '\0'), raw.length - 34, 'latin1');
      const txid = txIdFromBytes(raw);
      txs.push({
        txid,
        raw_tx: `0x${raw.toString('hex')}`,
        raw_result: '0x0703',
        status: 'success',
        tx_index: i,
        contract_abi: null,
        execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
        microblock_hash: null,
        microblock_sequence: null,
        microblock_parent_hash: null,
      });
      evs.push({
        txid,
        event_index: i,
        committed: true,
        type: 'stx_transfer_event',
        stx_transfer_event: { sender: transfer.sender, recipient: transfer.recipient, amount: transfer.amount, memo: '' },
      });
    }
    const body = {
      block_hash: blockHash,
      index_block_hash: index,
      parent_block_hash: parentHash,
      parent_index_block_hash: parentIndex,
      parent_microblock: `0x${'00'.repeat(32)}`,
      parent_microblock_sequence: 0,
      miner_txid: hex(32),
      burn_block_hash: hex(32),
      burn_block_height: 100 + h,
      burn_block_time: 1_700_000_000 + h * 600,
      block_height: h,
      parent_burn_block_hash: hex(32),
      parent_burn_block_height: 99 + h,
      parent_burn_block_timestamp: 1_700_000_000 + (h - 1) * 600,
      transactions: txs,
      events: evs,
      matured_miner_rewards: [],
    };
    const receivedAt = new Date(1_700_000_000_000 + h * 5_000).toISOString();
    if (opts.mempool) {
      events.push({
        id: String(events.length + 1),
        receivedAt,
        path: '/new_mempool_tx',
        body: JSON.stringify(txs.map((t) => t.raw_tx)),
      });
    }
    events.push({ id: String(events.length + 1), receivedAt, path: '/new_block', body: JSON.stringify(body) });
    parentIndex = index;
    parentHash = blockHash;
  }
  return events;
}
