/**
 * `JSON.parse`, except that an integer too large for a JS number (beyond ±2^53 − 1) comes back as its exact
 * decimal string instead of a rounded number. A Stacks node serializes u64 and u128 fields of some payloads
 * (`burnchain_op` amounts, `max_amount` up to u128::MAX) as bare JSON numbers; plain `JSON.parse` would silently
 * change those amounts. Every other value parses exactly as with `JSON.parse`.
 *
 * Cost: one native regex test over the text; the rewrite runs only when a long digit run follows `:`, `[` or `,`.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(LONG_NUMBER_HINT.test(text) ? quoteUnsafeIntegers(text) : text);
}

/** A number of 16+ digits where a value may start: the only place an unsafe integer can be (a string may match too). */
const LONG_NUMBER_HINT = /[:[,]\s*-?\d{16,}/;
/**
 * Strings are matched whole (and left alone) so that digits inside them are never touched; an integer must stand
 * alone (not the fraction or exponent digits of another number). The string pattern is the unrolled loop
 * `"[^"\\]*(?:\\.[^"\\]*)*"`: the alternation `(?:[^"\\]|\\.)*` keeps a backtrack entry per character, and on a
 * string of a few million characters (a large raw transaction) the regex engine ran out of stack.
 */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])(-?\d{16,})(?![.eE\d])/g;

function quoteUnsafeIntegers(text: string): string {
  return text.replace(TOKENS, (token: string, integer: string | undefined) => {
    if (integer === undefined) return token;
    const n = BigInt(integer);
    return n > MAX_SAFE || n < -MAX_SAFE ? `"${integer}"` : token;
  });
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
