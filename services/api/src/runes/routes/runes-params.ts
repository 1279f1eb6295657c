/**
 * Parameters of the `/runes/v1` endpoints. Every failure is an `InputError` (400) naming the parameter; values that
 * are well-formed but cannot exist in the ledger (an id beyond int4) are left to the lookup (404).
 */
import { InputError } from '@bda/common';
import { RUNE_OPERATIONS, type RuneOperationName } from '@bda/db';
import { parseSpacedRune, RuneNameError } from '@bda/runes';
import { echo, MAX_BLOCK_HEIGHT, parseHash32 } from '../../params';

export type BlockParam = { kind: 'height'; height: number } | { kind: 'hash'; hash: string };

const DIGITS = /^[0-9]+$/;
const HASH = /^(0x)?[0-9a-f]{64}$/i;
const INT4_MAX = 2_147_483_647;

/** `{block}`: a height (digits) or a block hash (64 hex digits, optional `0x`, any case). */
export function parseBlockParam(raw: string): BlockParam {
  if (DIGITS.test(raw) && raw.length < 64) {
    const height = raw.length <= 10 ? Number(raw) : Number.POSITIVE_INFINITY;
    if (height > MAX_BLOCK_HEIGHT) {
      throw new InputError(`block: a block height must be at most ${MAX_BLOCK_HEIGHT}, got ${JSON.stringify(raw)}`);
    }
    return { kind: 'height', height };
  }
  if (HASH.test(raw)) return { kind: 'hash', hash: parseHash32(raw, 'block', 'a block hash') };
  throw new InputError(
    `block: must be a block height (digits) or a block hash (64 hex digits, optionally 0x-prefixed), got ${echo(raw)}`,
  );
}

/**
 * `operation`: one or more of etching, mint, burn, send, receive — as a comma-separated list (`?operation=send,receive`),
 * repeated (`?operation=send&operation=receive`), or both. Returns the operation codes in ascending order, or
 * `undefined` when absent or when every operation is listed (no filter).
 */
export function parseOperations(query: Record<string, unknown>): number[] | undefined {
  const value = query['operation'];
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  const codes = new Set<number>();
  for (const part of parts) {
    const code = typeof part === 'string' ? RUNE_OPERATIONS.indexOf(part as RuneOperationName) : -1;
    if (code < 0) {
      throw new InputError(
        `query parameter operation: each value must be one of ${RUNE_OPERATIONS.join(', ')} (comma-separated or repeated), got ${JSON.stringify(
          typeof part === 'string' ? part.slice(0, 50) : part,
        )}`,
      );
    }
    codes.add(code);
  }
  if (codes.size === RUNE_OPERATIONS.length) return undefined;
  return [...codes].sort((a, b) => a - b);
}

export type EtchingParam =
  | { kind: 'id'; block: number; tx: number }
  | { kind: 'number'; number: number }
  | { kind: 'name'; rune: bigint; spacers: number | undefined }
  /** Well-formed but out of the ledger's range: nothing can match. */
  | { kind: 'none' };

/**
 * `{etching}`: a rune id (`840000:1`), a rune number (`7`), a name (`UNCOMMONGOODS`, any case, matching whatever
 * spacers the rune has) or a spaced name (`UNCOMMON•GOODS` or `UNCOMMON.GOODS`, matching those spacers exactly).
 */
export function parseEtchingParam(raw: string): EtchingParam {
  const id = /^([0-9]{1,20}):([0-9]{1,10})$/.exec(raw);
  if (id) {
    const block = Number(id[1]);
    const tx = Number(id[2]);
    return block > INT4_MAX || tx > INT4_MAX ? { kind: 'none' } : { kind: 'id', block, tx };
  }
  if (DIGITS.test(raw)) {
    const number = raw.length <= 10 ? Number(raw) : Number.POSITIVE_INFINITY;
    return number > INT4_MAX ? { kind: 'none' } : { kind: 'number', number };
  }
  try {
    const spaced = parseSpacedRune(raw.toUpperCase());
    return { kind: 'name', rune: spaced.rune, spacers: /[•.]/.test(raw) ? spaced.spacers : undefined };
  } catch (err) {
    if (!(err instanceof RuneNameError)) throw err;
    throw new InputError(
      `etching: must be a rune id (block:tx), a rune number, a rune name or a spaced rune name (${err.message}), got ${echo(raw)}`,
    );
  }
}

const BECH32 = /^(bc|tb|bcrt)1[02-9ac-hj-np-z]{8,87}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{25,35}$/;

/** `{address}`: a Bitcoin address, base58 or bech32 (bech32 in either case; the ledger stores lower case). */
export function parseAddressParam(raw: string): string {
  if (BASE58.test(raw)) return raw;
  const lower = raw.toLowerCase();
  if ((raw === lower || raw === raw.toUpperCase()) && BECH32.test(lower)) return lower;
  throw new InputError(`address: must be a Bitcoin address (base58 or bech32), got ${echo(raw)}`);
}
