import type { ReadReply } from '../../read-routes';
import { InputError } from '@bda/common';
import { echo, MAX_BLOCK_HEIGHT, parseHash32 } from '../../params';

const BARE_HASH = /^[0-9a-fA-F]{64}$/;

/**
 * A 32-byte hash path parameter of an operation the reference API answers, for a hash written without `0x`, with a
 * redirect to the same path with `0x` (its `302`, with no body). Returns true when it redirected; a malformed value is
 * a 400 naming `name`, as `parseHash32`.
 */
export function redirectBareHash(res: ReadReply, raw: string, name: string, what: string, to: (hash: string) => string): boolean {
  if (BARE_HASH.test(raw)) {
    res
      .status(302)
      .location(to(`0x${raw}`))
      .end();
    return true;
  }
  parseHash32(raw, name, what);
  return false;
}

const DIGITS = /^[0-9]{1,10}$/;

/** A block height path parameter (`{height}`, `{burn_block_height}`): digits, 0 to int4 max. */
export function parseHeightParam(raw: string, name: string): number {
  const n = DIGITS.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n > MAX_BLOCK_HEIGHT) {
    throw new InputError(`${name}: must be a block height, an integer from 0 to ${MAX_BLOCK_HEIGHT}, got ${echo(raw)}`);
  }
  return n;
}
