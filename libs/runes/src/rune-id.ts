import { U32_MAX, U64_MAX, fitsIn } from './integer-limits';

/** A rune's id: the height of its etching block and the etching transaction's index in it. */
export interface RuneId {
  block: bigint;
  tx: number;
}

/** `block:tx`, the form used as key everywhere outside the decoder. */
export function formatRuneId({ block, tx }: RuneId): string {
  return `${block}:${tx}`;
}

/** Reads `block:tx`; throws `RangeError` unless both are decimal integers in u64 / u32 range. */
export function parseRuneId(text: string): RuneId {
  const match = /^(\d+):(\d+)$/.exec(text);
  if (!match) throw new RangeError(`invalid rune id: ${text}`);
  const block = BigInt(match[1]!);
  const tx = BigInt(match[2]!);
  if (!fitsIn(block, U64_MAX) || !fitsIn(tx, U32_MAX)) throw new RangeError(`rune id out of range: ${text}`);
  return { block, tx: Number(tx) };
}

/**
 * Builds an id from u128 components the way ord's `RuneId::new` does after u64/u32 conversion:
 * `undefined` when block does not fit u64, tx does not fit u32, or block is 0 with tx > 0.
 */
export function runeIdFrom(block: bigint, tx: bigint): RuneId | undefined {
  if (!fitsIn(block, U64_MAX) || !fitsIn(tx, U32_MAX)) return undefined;
  if (block === 0n && tx > 0n) return undefined;
  return { block, tx: Number(tx) };
}

/**
 * The next edict id from the previous one and a delta pair (ord's `RuneId::next`):
 * `block += Δblock`; when `Δblock == 0` then `tx += Δtx`, else `tx = Δtx`.
 * `undefined` when a delta or the result leaves u64 / u32, or the result is block 0 with tx > 0.
 */
export function nextRuneId(previous: RuneId, blockDelta: bigint, txDelta: bigint): RuneId | undefined {
  if (!fitsIn(blockDelta, U64_MAX) || !fitsIn(txDelta, U32_MAX)) return undefined;
  const block = previous.block + blockDelta;
  const tx = blockDelta === 0n ? BigInt(previous.tx) + txDelta : txDelta;
  return runeIdFrom(block, tx);
}
