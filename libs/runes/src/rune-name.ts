import { U128_MAX, U32_MAX, U64_MAX, fitsIn } from './integer-limits';
import { type Network, SUBSIDY_HALVING_INTERVAL, firstRuneHeight } from './network';

/**
 * Rune names are u128 values written in a modified base-26: A=0 … Z=25, AA=26, AZ=51, BA=52,
 * up to u128::MAX = BCGDENLQRQWDSLRUGSNLBTMFIJAV (28 letters). The value is the protocol's
 * identity of a name; spacers (`•`) are presentation only.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const SPACER = '•';
const MAX_NAME_LENGTH = 28;

/** `STEPS[i]` is the value of the name made of `i + 1` A's: the smallest name of that length. */
const STEPS: readonly bigint[] = (() => {
  const steps = [0n];
  for (let i = 1; i < MAX_NAME_LENGTH; i++) steps.push((steps[i - 1]! + 1n) * 26n);
  return steps;
})();

/** 27 A's: names at or above it are reserved for etchings that give no name. */
export const RESERVED_RUNE = STEPS[26]!;

export type RuneNameErrorReason = 'empty' | 'character' | 'range' | 'leading-spacer' | 'trailing-spacer' | 'double-spacer';

export class RuneNameError extends Error {
  constructor(
    readonly reason: RuneNameErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'RuneNameError';
  }
}

/** A rune with its spacers: bit `i` of `spacers` puts a `•` after letter `i`. */
export interface SpacedRune {
  rune: bigint;
  spacers: number;
}

/** The letters of a rune value (no spacers). */
export function runeToName(rune: bigint): string {
  if (!fitsIn(rune, U128_MAX)) throw new RangeError(`rune out of u128 range: ${rune}`);
  let letters = '';
  for (let n = rune + 1n; n > 0n; n = (n - 1n) / 26n) {
    letters = ALPHABET[Number((n - 1n) % 26n)]! + letters;
  }
  return letters;
}

/**
 * The value of a name made only of the letters A–Z. Unlike ord, which reads `""` as A, an empty
 * name is rejected: it only ever comes from user input.
 */
export function runeFromName(name: string): bigint {
  if (name.length === 0) throw new RuneNameError('empty', 'empty rune name');
  let value = 0n;
  let letters = 0;
  for (const c of name) {
    const digit = ALPHABET.indexOf(c);
    if (digit < 0) {
      throw new RuneNameError('character', `invalid character \`${c}\` in rune name`);
    }
    if (++letters > MAX_NAME_LENGTH) throw new RuneNameError('range', 'rune name out of range');
    if (letters > 1) value += 1n;
    value = value * 26n + BigInt(digit);
  }
  if (value > U128_MAX) throw new RuneNameError('range', 'rune name out of range');
  return value;
}

/** Writes a rune with `•` after each letter whose spacer bit is set (bits past the last letter are ignored). */
export function formatSpacedRune({ rune, spacers }: SpacedRune): string {
  const letters = runeToName(rune);
  let out = '';
  for (let i = 0; i < letters.length; i++) {
    out += letters[i];
    if (i < letters.length - 1 && i < 32 && ((spacers >>> i) & 1) === 1) out += SPACER;
  }
  return out;
}

/** Reads a spaced name; `•` and `.` are both accepted as spacers (ord's `SpacedRune::from_str`). */
export function parseSpacedRune(text: string): SpacedRune {
  let letters = '';
  let spacers = 0;
  for (const c of text) {
    if (c === SPACER || c === '.') {
      if (letters.length === 0) throw new RuneNameError('leading-spacer', 'leading spacer in rune name');
      const bit = letters.length - 1;
      if (bit >= 32) throw new RuneNameError('range', 'rune name out of range');
      if (((spacers >>> bit) & 1) === 1) {
        throw new RuneNameError('double-spacer', 'double spacer in rune name');
      }
      spacers += 2 ** bit;
    } else {
      letters += c;
    }
  }
  if (spacers > 0 && spacers.toString(2).length >= letters.length) {
    throw new RuneNameError('trailing-spacer', 'trailing spacer in rune name');
  }
  return { rune: runeFromName(letters), spacers };
}

/** Whether a name lies in the reserved range (27 A's and above). */
export function isReservedRune(rune: bigint): boolean {
  return rune >= RESERVED_RUNE;
}

/** The name given to an etching without one: `RESERVED_RUNE + (block << 32 | tx)` (ord's `Rune::reserved`). */
export function reservedRune(block: bigint, tx: number): bigint {
  if (!fitsIn(block, U64_MAX) || !fitsIn(BigInt(tx), U32_MAX)) {
    throw new RangeError(`rune id out of range: ${block}:${tx}`);
  }
  return RESERVED_RUNE + ((block << 32n) | BigInt(tx));
}

const UNLOCK_INTERVAL = SUBSIDY_HALVING_INTERVAL / 12;

/**
 * The smallest name an etching may use in a block at `height` (ord's `Rune::minimum_at_height`).
 *
 * ord measures progress from `height + 1`: before activation the minimum is 13 A's; at the
 * activation height itself one block of progress has already passed, so the minimum is just
 * below 13 A's (ZZYZXBRKWXVA). Every 17,500 blocks the minimum length drops by one letter, and
 * within each interval the minimum falls linearly from the smallest name of that length towards
 * the smallest name one letter shorter. From activation + 209,999 on any name (A = 0) is allowed.
 */
export function minimumAtHeight(network: Network, height: number): bigint {
  const offset = height + 1;
  const start = firstRuneHeight(network);
  const end = start + SUBSIDY_HALVING_INTERVAL;
  if (offset < start) return STEPS[12]!;
  if (offset >= end) return 0n;
  const progress = offset - start;
  const length = 12 - Math.floor(progress / UNLOCK_INTERVAL);
  const shorter = STEPS[length - 1]!;
  const longer = STEPS[length]!;
  const remainder = BigInt(progress % UNLOCK_INTERVAL);
  return longer - ((longer - shorter) * remainder) / BigInt(UNLOCK_INTERVAL);
}

/**
 * The bytes an etching's commit transaction must push in a tapscript: the name's value in
 * little-endian order with trailing zero bytes removed (A = 0 commits to the empty push).
 */
export function runeCommitment(rune: bigint): Uint8Array {
  if (!fitsIn(rune, U128_MAX)) throw new RangeError(`rune out of u128 range: ${rune}`);
  const bytes: number[] = [];
  for (let n = rune; n > 0n; n >>= 8n) bytes.push(Number(n & 0xffn));
  return Uint8Array.from(bytes);
}
