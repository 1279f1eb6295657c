import { randomBytes } from 'node:crypto';
import { decodeTransaction } from '@bda/stacks-codec';
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
export function fixtureTransferPool(): { rawTxPool: string[]; addresses: string[] } {
  type Block = {
    transactions: Array<{ raw_tx: string }>;
    events: Array<{ stx_transfer_event?: { sender: string; recipient: string } }>;
  };
  const blocks = FIXTURE_FILES.flatMap((f) => loadFixture(f))
    .filter((e) => e.path === '/new_block')
    .map((e) => JSON.parse(e.body) as Block);
  const isTransfer = (raw: string) => {
    try {
      return decodeTransaction(raw).payload.typeId === 'token_transfer';
    } catch {
      return false;
    }
  };
  const rawTxPool = blocks
    .flatMap((b) => b.transactions.map((t) => t.raw_tx))
    .filter((r) => r.length > 4 && isTransfer(r))
    .slice(0, 200);
  const addresses = [
    ...new Set(
      blocks
        .flatMap((b) => b.events)
        .flatMap((ev) => (ev.stx_transfer_event ? [ev.stx_transfer_event.sender, ev.stx_transfer_event.recipient] : [])),
    ),
  ];
  return { rawTxPool, addresses };
}

/**
 * A synthetic Stacks chain for load: `blocks` blocks of `txsPerBlock` STX transfers, each with its
 * `stx_transfer_event`. Raw transactions are real ones taken from the recorded fixtures (so decoding
 * does real work); txids, hashes and the event parties are generated.
 */
export function generateChain(opts: {
  blocks: number;
  txsPerBlock: number;
  rawTxPool: string[];
  addresses: string[];
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
      const txid = hex(32);
      txs.push({
        txid,
        raw_tx: pick(opts.rawTxPool, h * 31 + i),
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
        stx_transfer_event: {
          sender: pick(opts.addresses, h + i),
          recipient: pick(opts.addresses, h * 7 + i + 1),
          amount: String(1000 + i),
          memo: '',
        },
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
