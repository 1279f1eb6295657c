/**
 * The few chain-format helpers the api needs, in one place so the codec library behind them can change without
 * touching routes or mappers. Backed by `@bda/stacks-codec` (reference-exact Clarity `repr`, strict principals).
 */
import { decodeClarityValue, isValidPrincipal as codecIsValidPrincipal } from '@bda/stacks-codec';

/** A Clarity value as the reference API shows it. */
export interface ClarityValueView {
  hex: string;
  repr: string;
}

/**
 * `{hex, repr}` of a hex-serialized Clarity value. Rows come from the indexer, which already decoded them once; if a
 * stored value cannot be decoded anyway, the hex is still shown and `repr` is empty rather than failing the request.
 */
export function clarityValueView(hex: string | null | undefined): ClarityValueView {
  if (!hex) return { hex: '', repr: '' };
  const normalized = hex.startsWith('0x') ? hex.toLowerCase() : `0x${hex.toLowerCase()}`;
  try {
    return { hex: normalized, repr: decodeClarityValue(normalized).repr };
  } catch {
    return { hex: normalized, repr: '' };
  }
}

/** A canonical standard principal (`SP…`, `SM…`, `ST…`, `SN…`) or contract principal (`SP….name`). */
export function isValidPrincipal(s: string): boolean {
  return codecIsValidPrincipal(s);
}
