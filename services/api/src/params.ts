/**
 * Strict request-parameter parsing. Every failure is an `InputError` (400) whose message names the parameter and
 * says what was expected, so a client can fix the request without reading the docs.
 */
import { InputError } from '@bda/common';
import { isValidPrincipal } from './codec';

/** Largest offset accepted (int4 max): beyond it no list has rows, and it keeps arithmetic exact. */
const MAX_OFFSET = 2_147_483_647;
/** Largest block height accepted (heights are int4 columns). */
export const MAX_BLOCK_HEIGHT = 2_147_483_647;

type Query = Record<string, unknown>;

/** Longest part of a bad value an error message repeats: enough to recognise it, never the 16 KB a client sent. */
const ECHO_MAX = 100;

/** `raw` quoted for an error message, cut to `ECHO_MAX` characters (`…` marks the cut). */
export function echo(raw: string): string {
  return raw.length > ECHO_MAX ? `${JSON.stringify(raw.slice(0, ECHO_MAX))}… (${raw.length} characters)` : JSON.stringify(raw);
}

/** The single string value of a query parameter, `undefined` when absent; repeated or structured → 400. */
export function queryString(query: Query, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw new InputError(`query parameter ${name}: given more than once; pass it at most once`);
  if (typeof v !== 'string') throw new InputError(`query parameter ${name}: must be a single value`);
  return v;
}

const DIGITS = /^[0-9]+$/;

/** A non-negative decimal integer written with digits only (no sign, no fraction, no exponent, no spaces). */
function parseDigits(raw: string): number | undefined {
  if (!DIGITS.test(raw) || raw.length > 16) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

export interface IntParamRule {
  default: number;
  min: number;
  max: number;
}

/** An optional integer query parameter within [min, max]. */
export function queryInt(query: Query, name: string, rule: IntParamRule): number {
  const raw = queryString(query, name);
  if (raw === undefined) return rule.default;
  const n = parseDigits(raw);
  if (n === undefined || n < rule.min || n > rule.max) {
    throw new InputError(`query parameter ${name}: must be an integer from ${rule.min} to ${rule.max}, got ${echo(raw)}`);
  }
  return n;
}

/** An optional query parameter that must be one of `values` (exact, case-sensitive), else `fallback`. */
export function queryEnum<T extends string>(query: Query, name: string, values: readonly T[], fallback: T): T {
  const raw = queryString(query, name);
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new InputError(`query parameter ${name}: must be one of ${values.join(', ')}, got ${echo(raw)}`);
  }
  return raw as T;
}

/** An optional `true` / `false` query parameter (the reference API's flags), else `fallback`. */
export function queryBoolean(query: Query, name: string, fallback = false): boolean {
  return queryEnum(query, name, ['true', 'false'] as const, fallback ? 'true' : 'false') === 'true';
}

export interface Page {
  limit: number;
  offset: number;
}

/**
 * A page size from 0 to `max`, where 0 (like leaving it out) means the default: the reference API's chain endpoints
 * take `limit=0` for "the default page", and clients send it.
 */
function queryLimit(query: Query, name: string, limits: { default: number; max: number }): number {
  return queryInt(query, name, { default: limits.default, min: 0, max: limits.max }) || limits.default;
}

/**
 * `limit` and `offset` (≥ 0, default 0), under the names given (`limit` and `offset` by default). `limit` is 1…max,
 * or with `zeroMeansDefault` (the chain endpoints, as the reference API) 0…max with 0 for the default.
 */
export function parsePage(
  query: Query,
  limits: { default: number; max: number },
  opts: { limit?: string; offset?: string; zeroMeansDefault?: boolean } = {},
): Page {
  const { limit = 'limit', offset = 'offset' } = opts;
  return {
    limit: opts.zeroMeansDefault
      ? queryLimit(query, limit, limits)
      : queryInt(query, limit, { default: limits.default, min: 1, max: limits.max }),
    offset: queryInt(query, offset, { default: 0, min: 0, max: MAX_OFFSET }),
  };
}

export interface CursorPage {
  limit: number;
  /** Blocks to skip from the cursor block (or the tip) towards older ones; negative moves towards the tip. */
  offset: number;
  /** The index block hash (`0x` lower-case hex) the page is counted from; undefined = the chain tip. */
  cursor?: string;
}

/** How many pages of the largest size a cursor's `offset` may move by, either way (the reference API allows 10). */
const CURSOR_OFFSET_PAGES = 10;

/**
 * `limit` (0 for the default, as `queryLimit`), `cursor` and `offset` of a cursor-paginated list. `offset` counts
 * blocks from the cursor's block, or from the tip without one; negative moves towards the tip. With a cursor it stays
 * within ±`CURSOR_OFFSET_PAGES` pages of the largest size. Without one it goes from minus that bound (a page above the
 * tip, empty, as the reference API answers it) up to `MAX_OFFSET`.
 */
export function parseCursorPage(query: Query, limits: { default: number; max: number }, what: string): CursorPage {
  const limit = queryLimit(query, 'limit', limits);
  const rawCursor = queryString(query, 'cursor');
  const cursor = rawCursor === undefined ? undefined : parseHash32(rawCursor, 'query parameter cursor', what);
  const bound = limits.max * CURSOR_OFFSET_PAGES;
  const max = cursor === undefined ? MAX_OFFSET : bound;
  const raw = queryString(query, 'offset');
  let offset = 0;
  if (raw !== undefined) {
    const negative = raw.startsWith('-');
    const n = parseDigits(negative ? raw.slice(1) : raw);
    if (n === undefined || n > (negative ? bound : max)) {
      throw new InputError(
        `query parameter offset: ${cursor === undefined ? 'without' : 'with'} a cursor, must be an integer from ${-bound} to ${max}, got ${echo(raw)}`,
      );
    }
    offset = (negative ? -n : n) || 0; // no -0
  }
  return cursor === undefined ? { limit, offset } : { limit, offset, cursor };
}

const HASH_64 = /^(0x)?[0-9a-fA-F]{64}$/i;

/** A 32-byte hash with or without `0x`, any case → `0x` + lower-case hex; anything else → 400 naming `name`. */
export function parseHash32(raw: string, name: string, what: string): string {
  if (!HASH_64.test(raw)) {
    throw new InputError(`${name}: must be ${what} (64 hex digits, optionally 0x-prefixed), got ${echo(raw)}`);
  }
  const body = raw.length === 66 ? raw.slice(2) : raw;
  return `0x${body.toLowerCase()}`;
}

export type BlockRef = { kind: 'height'; height: number } | { kind: 'hash'; hash: string } | { kind: 'latest' };

/**
 * `{height_or_hash}`: a height (digits) or a block hash / index block hash (64 hex, optional 0x, any case); with
 * `allowLatest`, also `latest`, the chain tip (as the reference API's `/extended/v2/blocks/latest`).
 */
export function parseHeightOrHash(raw: string, name = 'height_or_hash', opts: { allowLatest?: boolean } = {}): BlockRef {
  if (opts.allowLatest && raw === 'latest') return { kind: 'latest' };
  if (DIGITS.test(raw) && raw.length < 64) {
    const n = parseDigits(raw);
    if (n === undefined || n > MAX_BLOCK_HEIGHT) {
      throw new InputError(`${name}: block height must be at most ${MAX_BLOCK_HEIGHT}, got ${echo(raw)}`);
    }
    return { kind: 'height', height: n };
  }
  if (HASH_64.test(raw)) return { kind: 'hash', hash: parseHash32(raw, name, 'a block hash') };
  throw new InputError(
    `${name}: must be ${opts.allowLatest ? '`latest`, ' : ''}a block height (digits) or a block hash / index block hash (64 hex digits, optionally 0x-prefixed), got ${echo(raw)}`,
  );
}

/** A transaction id → `0x` + lower-case hex. */
export function parseTxId(raw: string, name = 'tx_id'): string {
  return parseHash32(raw, name, 'a transaction id');
}

/** A standard or contract principal, exactly as the chain spells it (upper-case c32, valid checksum). */
export function parsePrincipal(raw: string, name = 'principal'): string {
  if (raw.length > 200 || !isValidPrincipal(raw)) {
    throw new InputError(
      `${name}: must be a Stacks address (SP…/SM…/ST…/SN… with a valid checksum) or a contract principal (<address>.<contract-name>), got ${echo(raw)}`,
    );
  }
  return raw;
}
