/**
 * STX balances computed straight from a recorded fixture, independently of the api: the canonical chain is the tip
 * block of the fixtures README and its ancestors (by `parent_index_block_hash`); each canonical block charges the fee
 * of every transaction to its payer (decoded with the project's decoder) and applies its committed STX events. Used
 * as the expected values of the Rosetta balance tests, and to size the genesis allocations of a fixture whose genesis
 * balances the node never sent (mainnet).
 */
import { decodeTransaction } from '@bda/stacks-codec';
import { loadRecordedEvents } from './replayed-database';
import { FIXTURE_TIPS } from './rosetta-system';

interface NodeBlock {
  block_height: number;
  index_block_hash: string;
  parent_index_block_hash: string;
  burn_block_height: number;
  burn_block_time: number;
  block_time?: number | null;
  transactions: Array<{ txid: string; raw_tx: string }>;
  events: Array<{ txid: string; type: string; committed: boolean } & Record<string, Record<string, string>>>;
}

export interface FixtureLedger {
  /** Canonical blocks by height. */
  canonical: NodeBlock[];
  /** Spendable micro-STX at that block by address (total − locked), genesis allocations included. */
  spendable: Map<string, bigint>;
  /** Locked micro-STX at that block by address. */
  locked: Map<string, bigint>;
  /** Every micro-STX an address paid out in the whole fixture (fees, transfers out, burns, largest lock). */
  outgoing: Map<string, bigint>;
}

function add(m: Map<string, bigint>, k: string, v: bigint): void {
  if (v === 0n) return;
  m.set(k, (m.get(k) ?? 0n) + v);
}

/** The ledger at the canonical block of height `upToHeight` (default: the tip). */
export function fixtureLedger(
  file: string,
  genesis: ReadonlyMap<string, bigint> = new Map(),
  upToHeight = Number.MAX_SAFE_INTEGER,
): FixtureLedger {
  const blocks = loadRecordedEvents(file)
    .filter((e) => e.path === '/new_block')
    .map((e) => JSON.parse(e.body) as NodeBlock);
  // A block the node sent twice counts once, as first received (as the indexer applies it).
  const byHash = new Map<string, NodeBlock>();
  for (const b of blocks) if (!byHash.has(b.index_block_hash)) byHash.set(b.index_block_hash, b);
  const canonical: NodeBlock[] = [];
  for (let b = byHash.get(FIXTURE_TIPS[file]!.indexBlockHash); b; b = byHash.get(b.parent_index_block_hash)) canonical.unshift(b);

  const total = new Map(genesis);
  const lockedBy = new Map<string, { amount: bigint; unlock: bigint }>();
  const outgoing = new Map<string, bigint>();
  const applied = canonical.filter((b) => b.block_height <= upToHeight);
  const tipBurn = BigInt(applied.at(-1)!.burn_block_height);
  for (const block of applied) {
    for (const tx of block.transactions) {
      if (tx.raw_tx === '0x00') continue; // a burnchain operation: no fee
      const d = decodeTransaction(tx.raw_tx);
      const payer = d.sponsorAddress ?? d.senderAddress;
      add(total, payer, -d.feeRate);
      add(outgoing, payer, d.feeRate);
    }
    for (const e of block.events) {
      if (!e.committed) continue;
      const body = e[e.type]!;
      if (e.type === 'stx_transfer_event') {
        add(total, body['sender']!, -BigInt(body['amount']!));
        add(total, body['recipient']!, BigInt(body['amount']!));
        add(outgoing, body['sender']!, BigInt(body['amount']!));
      } else if (e.type === 'stx_mint_event') {
        add(total, body['recipient']!, BigInt(body['amount']!));
      } else if (e.type === 'stx_burn_event') {
        add(total, body['sender']!, -BigInt(body['amount']!));
        add(outgoing, body['sender']!, BigInt(body['amount']!));
      } else if (e.type === 'stx_lock_event') {
        const amount = BigInt(body['locked_amount']!);
        lockedBy.set(body['locked_address']!, { amount, unlock: BigInt(body['unlock_height']!) });
        add(outgoing, body['locked_address']!, amount);
      }
    }
  }
  const locked = new Map<string, bigint>();
  for (const [address, l] of lockedBy) {
    // The fixtures' locks all outlive their tips (asserted by the tests that read `locked`).
    if (l.unlock > tipBurn) locked.set(address, l.amount);
  }
  const spendable = new Map<string, bigint>();
  for (const [address, t] of total) spendable.set(address, t - (locked.get(address) ?? 0n));
  return { canonical, spendable, locked, outgoing };
}
