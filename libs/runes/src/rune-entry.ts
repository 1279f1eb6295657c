import { U128_MAX, U64_MAX } from './integer-limits';
import type { Network } from './network';
import type { Terms } from './runestone';

/** Everything known about an etched rune; `mints` and `burned` are totals so far. */
export interface RuneEntry {
  /** `block:tx`. */
  id: string;
  /** Etching block height and transaction index (the two halves of the id). */
  block: number;
  tx: number;
  etchingTxid: string;
  /** Etching block time, Unix seconds. */
  timestamp: number;
  /** Position in etching order, from 0 (the genesis rune on mainnet). */
  number: number;
  rune: bigint;
  spacers: number;
  divisibility: number;
  symbol: string | null;
  premine: bigint;
  /** Open-mint terms; `null` means the rune cannot be minted. */
  terms: Terms | null;
  turbo: boolean;
  mints: bigint;
  burned: bigint;
}

/**
 * UNCOMMON•GOODS, id 1:0, number 0: the rune ord creates on mainnet when its index is made
 * (no etching transaction: txid all zeros, timestamp 0). Mintable by anyone for one unit per
 * mint during heights 840,000–1,049,999. Seed it before executing mainnet's first rune block, and
 * count it in `RuneLedgerView.runeCount` so the first etched rune gets number 1.
 */
export const GENESIS_RUNE: Readonly<RuneEntry> = Object.freeze({
  id: '1:0',
  block: 1,
  tx: 0,
  etchingTxid: '0'.repeat(64),
  timestamp: 0,
  number: 0,
  rune: 2055900680524219742n,
  spacers: 128,
  divisibility: 0,
  symbol: '\u29C9',
  premine: 0n,
  terms: Object.freeze({ amount: 1n, cap: U128_MAX, heightStart: 840_000n, heightEnd: 1_050_000n }),
  turbo: true,
  mints: 0n,
  burned: 0n,
});

/** The runes that exist before any block is executed: the genesis rune on mainnet, none elsewhere. */
export function genesisRunes(network: Network): ReadonlyArray<Readonly<RuneEntry>> {
  return network === 'mainnet' ? [GENESIS_RUNE] : [];
}

/**
 * The heights a rune can be minted in, `[start, end)`: `start = max(block + offsetStart,
 * heightStart)`, `end = min(block + offsetEnd, heightEnd)`, each over the bounds that are set
 * (`undefined` = unbounded). Relative bounds saturate at u64::MAX like ord's.
 */
export function mintWindow(entry: Pick<RuneEntry, 'block' | 'terms'>): {
  start: bigint | undefined;
  end: bigint | undefined;
} {
  const terms = entry.terms;
  if (!terms) return { start: undefined, end: undefined };
  const relative = (offset: bigint | undefined) =>
    offset === undefined ? undefined : min(BigInt(entry.block) + offset, U64_MAX);
  return {
    start: pick(relative(terms.offsetStart), terms.heightStart, (a, b) => (a > b ? a : b)),
    end: pick(relative(terms.offsetEnd), terms.heightEnd, min),
  };
}

/**
 * The amount one mint gives at `height` (terms amount, 0 when unset), or `undefined` when the
 * rune is not mintable: no terms, before start, at or after end, or `mints >= cap` (no cap
 * means a cap of 0).
 */
export function mintableAmount(entry: RuneEntry, height: number): bigint | undefined {
  const terms = entry.terms;
  if (!terms) return undefined;
  const { start, end } = mintWindow(entry);
  const at = BigInt(height);
  if (start !== undefined && at < start) return undefined;
  if (end !== undefined && at >= end) return undefined;
  if (entry.mints >= (terms.cap ?? 0n)) return undefined;
  return terms.amount ?? 0n;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function pick(a: bigint | undefined, b: bigint | undefined, both: (a: bigint, b: bigint) => bigint): bigint | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return both(a, b);
}
