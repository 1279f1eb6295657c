/**
 * Independent expectations for the chain family's tests, computed from a recorded fixture's raw events (not from
 * the indexer's tables): the canonical chain by fork choice over the `/new_block` bodies, each block's transaction ids
 * in the reference API's orders, and the burn blocks the canonical Stacks blocks were mined in.
 */
import { loadRecordedEvents } from './support/replayed-database';

const ANCHORED = 2147483647;

interface OracleTx {
  tx_id: string;
  tx_index: number;
  microblock_hash: string | null;
  microblock_sequence: number | null;
  raw_tx: string;
  status: string;
}

export interface OracleBlock {
  index_block_hash: string;
  block_hash: string;
  block_height: number;
  parent_index_block_hash: string;
  burn_block_hash: string;
  burn_block_height: number;
  burn_block_time: number;
  block_time: number | null;
  parent_microblock: string;
  parent_microblock_sequence: number;
  /** In the node's order, a repeated txid kept at its first position. */
  txs: OracleTx[];
  /** Nakamoto signer signatures as the node sent them (hex, no `0x`); empty before Nakamoto. */
  signer_signature: string[];
  canonical: boolean;
}

export interface ChainOracle {
  /** Every block, canonical or not, in arrival order. */
  blocks: OracleBlock[];
  /** Canonical blocks by height, lowest first. */
  canonical: OracleBlock[];
  tip: OracleBlock;
  /** Canonical blocks grouped by burn height, lowest burn height first (each group lowest Stacks height first). */
  burnBlocks: Array<{ burn_block_height: number; burn_block_hash: string; burn_block_time: number; blocks: OracleBlock[] }>;
  /** Mempool transactions the node reported (raw), by txid. */
  mempoolRaw: Map<string, string>;
}

const lower = (h: string) => h.toLowerCase();

/** Reads a fixture's `/new_block` bodies and chooses the canonical chain: the highest block (first seen on a tie) and its ancestors. */
export function chainOracle(fixture: string): ChainOracle {
  const blocks: OracleBlock[] = [];
  const mempoolRaw = new Map<string, string>();
  for (const ev of loadRecordedEvents(fixture)) {
    if (ev.path === '/new_mempool_tx') {
      for (const raw of JSON.parse(ev.body) as string[]) mempoolRaw.set(raw, raw);
      continue;
    }
    if (ev.path !== '/new_block') continue;
    const b = JSON.parse(ev.body) as Record<string, unknown>;
    const hash = lower(b['index_block_hash'] as string);
    if (blocks.some((x) => x.index_block_hash === hash)) continue;
    const seen = new Set<string>();
    const txs: OracleTx[] = [];
    for (const t of b['transactions'] as Array<Record<string, unknown>>) {
      const id = lower(t['txid'] as string);
      if (seen.has(id)) continue;
      seen.add(id);
      txs.push({
        tx_id: id,
        tx_index: t['tx_index'] as number,
        microblock_hash: (t['microblock_hash'] as string | null) ?? null,
        microblock_sequence: (t['microblock_sequence'] as number | null) ?? null,
        raw_tx: lower(t['raw_tx'] as string),
        status: t['status'] as string,
      });
    }
    blocks.push({
      index_block_hash: hash,
      block_hash: lower(b['block_hash'] as string),
      block_height: b['block_height'] as number,
      parent_index_block_hash: lower(b['parent_index_block_hash'] as string),
      burn_block_hash: lower(b['burn_block_hash'] as string),
      burn_block_height: b['burn_block_height'] as number,
      burn_block_time: b['burn_block_time'] as number,
      block_time: (b['block_time'] as number | undefined) ?? null,
      parent_microblock: lower(b['parent_microblock'] as string),
      parent_microblock_sequence: b['parent_microblock_sequence'] as number,
      txs,
      signer_signature: (b['signer_signature'] as string[] | null | undefined) ?? [],
      canonical: false,
    });
  }
  let tip = blocks[0]!;
  for (const b of blocks) if (b.block_height > tip.block_height) tip = b;
  const byHash = new Map(blocks.map((b) => [b.index_block_hash, b]));
  const canonical: OracleBlock[] = [];
  for (let b: OracleBlock | undefined = tip; b; b = byHash.get(b.parent_index_block_hash)) {
    b.canonical = true;
    canonical.unshift(b);
  }
  const groups = new Map<number, OracleBlock[]>();
  for (const b of canonical) groups.set(b.burn_block_height, [...(groups.get(b.burn_block_height) ?? []), b]);
  const burnBlocks = [...groups.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([h, bs]) => {
      const newest = bs[bs.length - 1]!;
      return {
        burn_block_height: h,
        burn_block_hash: newest.burn_block_hash,
        burn_block_time: newest.burn_block_time,
        blocks: bs,
      };
    });
  return { blocks, canonical, tip, burnBlocks, mempoolRaw };
}

/** The v1 `Block.txs` order: anchored transactions first, then microblock ones from the newest microblock, each part by position, highest first. */
export function v1TxOrder(b: OracleBlock): string[] {
  const key = (t: OracleTx) => t.microblock_sequence ?? ANCHORED;
  return [...b.txs].sort((x, y) => key(y) - key(x) || y.tx_index - x.tx_index).map((t) => t.tx_id);
}

/** The order of a block's transaction lists (`/tx/block…`, v2 and v3 block transactions): microblock ones first, each by position. */
export function blockTxOrder(b: OracleBlock): string[] {
  const key = (t: OracleTx) => t.microblock_sequence ?? ANCHORED;
  return [...b.txs].sort((x, y) => key(x) - key(y) || x.tx_index - y.tx_index).map((t) => t.tx_id);
}

/** A PoX reward of a canonical burn block, as the node listed it in `/new_burn_block`. */
export interface OracleReward {
  burn_block_hash: string;
  burn_block_height: number;
  burn_amount: string;
  reward_recipient: string;
  reward_amount: string;
  reward_index: number;
}

/** A reward slot holder of a canonical burn block. */
export interface OracleSlotHolder {
  burn_block_hash: string;
  burn_block_height: number;
  address: string;
  slot_index: number;
}

export interface BurnchainOracle {
  /** Rewards of the canonical burn blocks, newest burn block first, highest position first within one. */
  rewards: OracleReward[];
  /** Slot holders likewise. */
  slotHolders: OracleSlotHolder[];
  /** Satoshis of the canonical rewards per recipient. */
  totals: Map<string, bigint>;
}

/**
 * The burnchain rewards and reward slot holders of a fixture's `/new_burn_block` bodies (then of `extra` bodies, as
 * if they came after), by the node's rule for burn blocks: the newest block seen at a height is the canonical one
 * there, and a block seen again changes nothing.
 */
export function burnchainOracle(fixture: string, extra: ReadonlyArray<Record<string, unknown>> = []): BurnchainOracle {
  const bodies = loadRecordedEvents(fixture)
    .filter((ev) => ev.path === '/new_burn_block')
    .map((ev) => JSON.parse(ev.body) as Record<string, unknown>);
  const seen = new Set<string>();
  const canonicalAt = new Map<number, Record<string, unknown>>();
  for (const b of [...bodies, ...extra]) {
    const hash = lower(b['burn_block_hash'] as string);
    if (seen.has(hash)) continue;
    seen.add(hash);
    canonicalAt.set(b['burn_block_height'] as number, b);
  }
  const rewards: OracleReward[] = [];
  const slotHolders: OracleSlotHolder[] = [];
  const totals = new Map<string, bigint>();
  for (const h of [...canonicalAt.keys()].sort((x, y) => y - x)) {
    const b = canonicalAt.get(h)!;
    const hash = lower(b['burn_block_hash'] as string);
    const recipients = (b['reward_recipients'] as Array<{ recipient: string; amt: number | string }> | undefined) ?? [];
    for (let i = recipients.length - 1; i >= 0; i--) {
      const r = recipients[i]!;
      rewards.push({
        burn_block_hash: hash,
        burn_block_height: h,
        burn_amount: String(b['burn_amount'] ?? 0),
        reward_recipient: r.recipient,
        reward_amount: String(r.amt),
        reward_index: i,
      });
      totals.set(r.recipient, (totals.get(r.recipient) ?? 0n) + BigInt(r.amt));
    }
    const slots = (b['reward_slot_holders'] as string[] | undefined) ?? [];
    for (let i = slots.length - 1; i >= 0; i--) {
      slotHolders.push({ burn_block_hash: hash, burn_block_height: h, address: slots[i]!, slot_index: i });
    }
  }
  return { rewards, slotHolders, totals };
}
