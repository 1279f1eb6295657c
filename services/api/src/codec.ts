/**
 * The few chain-format helpers the api needs, in one place so the codec library behind them can change without
 * touching routes or mappers. Backed by `@bda/stacks-codec` (reference-exact Clarity `repr`, strict principals).
 */
import { isValidPrincipal as codecIsValidPrincipal } from '@bda/stacks-codec';

/** `{hex, repr}` of a stored Clarity value: one definition (`@bda/db`), the one the indexer's kept texts use. */
export { clarityValueView, type ClarityValueView } from '@bda/db';

/** A canonical standard principal (`SP…`, `SM…`, `ST…`, `SN…`) or contract principal (`SP….name`). */
export function isValidPrincipal(s: string): boolean {
  return codecIsValidPrincipal(s);
}
