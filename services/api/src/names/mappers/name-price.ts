import type { DbBnsNamespace } from '@bda/db';

/** `GET /v2/prices/…`: a price in micro-STX, as the contract's read-only functions return it. */
export interface BnsPriceResponse {
  units: 'STX';
  amount: string;
}

/** The contract's `NAMESPACE_PRICE_TIERS` (micro-STX), by namespace length 1, 2, 3–4, 5–7 (index min(7, len − 1)). */
const NAMESPACE_PRICE_TIERS: readonly bigint[] = [
  640000000000n,
  64000000000n,
  64000000000n,
  6400000000n,
  6400000000n,
  6400000000n,
  6400000000n,
  640000000n,
];

const U128_MAX = (1n << 128n) - 1n;

/** `get-namespace-price`: the tier of the namespace's length. */
export function namespacePrice(namespace: string): bigint {
  return NAMESPACE_PRICE_TIERS[Math.min(7, namespace.length - 1)]!;
}

const VOWELS = new Set('aeiouy');
const NONALPHA = new Set('0123456789-_');

/**
 * `compute-name-price` of the BNS contract, in exact integer arithmetic as Clarity does it:
 * `((coeff × base^buckets[min(15, len − 1)]) / max(nonalpha, no-vowel)) × 10`, where the no-vowel divisor applies to
 * a name without a, e, i, o, u or y and the non-alpha one to a name with a digit, `-` or `_` (each 1 otherwise).
 * Null where the contract's call fails: a division by zero, or a value beyond uint (u128).
 */
export function namePrice(
  name: string,
  ns: Pick<DbBnsNamespace, 'buckets' | 'base' | 'coeff' | 'nonalpha_discount' | 'no_vowel_discount'>,
): bigint | null {
  const buckets = ns.buckets.split(';').map((b) => BigInt(b));
  const exponent = buckets[Math.min(15, name.length - 1)];
  if (exponent === undefined) return null;
  const chars = [...name];
  const noVowel = chars.some((c) => VOWELS.has(c)) ? 1n : BigInt(ns.no_vowel_discount);
  const nonalpha = chars.some((c) => NONALPHA.has(c)) ? BigInt(ns.nonalpha_discount) : 1n;
  const divisor = nonalpha > noVowel ? nonalpha : noVowel;
  if (divisor === 0n) return null;
  const base = BigInt(ns.base);
  // Clarity's pow fails beyond u128: 2^128 is already out of range, so a larger exponent never fits.
  if (base > 1n && exponent >= 128n) return null;
  const power = base ** exponent;
  const product = BigInt(ns.coeff) * power;
  if (power > U128_MAX || product > U128_MAX) return null;
  const price = (product / divisor) * 10n;
  return price > U128_MAX ? null : price;
}

export const toPriceResponse = (amount: bigint): BnsPriceResponse => ({ units: 'STX', amount: amount.toString() });
