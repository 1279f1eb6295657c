/** Largest u128 (2^128 - 1): the range of every rune amount, name and protocol integer. */
export const U128_MAX = (1n << 128n) - 1n;

/** Largest u64: block heights and height/offset terms in a runestone. */
export const U64_MAX = (1n << 64n) - 1n;

/** Largest u32: transaction indexes, output indexes and spacers. */
export const U32_MAX = 0xffff_ffffn;

/** True when `value` is an integer in `[0, max]`. */
export function fitsIn(value: bigint, max: bigint): boolean {
  return value >= 0n && value <= max;
}
