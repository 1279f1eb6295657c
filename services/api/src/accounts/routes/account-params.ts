import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import { echo, MAX_BLOCK_HEIGHT, queryBoolean, queryInt, queryString } from '../../params';
import { canonicalHeightOf } from '../datastore/stx-balance';

/**
 * `until_block` (a height from 1, or a `0x` block hash or index block hash) and `unanchored` of the v1 balance
 * endpoints, as the reference API takes them: both together is a 400; a hash no canonical block has is a 404. Returns
 * the height to read at, null for the tip. An empty `until_block` is a 400 naming it (the reference reads it as absent;
 * the api's sweep holds every empty parameter to a 400, ADR 0024). `unanchored` reads the tip too: the read models hold anchored blocks only,
 * and since Nakamoto there are no unconfirmed microblocks (ADR 0024).
 */
export async function parseUntilBlock(db: Knex, query: Record<string, unknown>): Promise<number | null> {
  const unanchored = queryBoolean(query, 'unanchored');
  const raw = queryString(query, 'until_block');
  if (raw === undefined) return null;
  if (unanchored) {
    throw new InputError(
      `query parameter until_block: can't handle both 'unanchored=true' and 'until_block' in the same request`,
    );
  }
  if (/^0x/i.test(raw)) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) {
      throw new InputError(`query parameter until_block: ${echo(raw)} is not a block height or a 0x-prefixed 32-byte block hash`);
    }
    const height = await canonicalHeightOf(db, raw.toLowerCase());
    if (height === null) throw new NotFoundError(`query parameter until_block: block not found with hash ${raw.toLowerCase()}`);
    return height;
  }
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_BLOCK_HEIGHT) {
    throw new InputError(`query parameter until_block: ${echo(raw)} is not a block height (an integer from 1) or a block hash`);
  }
  return Number(raw);
}

/**
 * `height` (one block) and `until_block` (up to a block) of the v1 address lists, as the reference API takes them:
 * both together is a 400; `until_block` as `parseUntilBlock`. Returns the range to read.
 */
export async function parseHeightRange(
  db: Knex,
  query: Record<string, unknown>,
): Promise<{ kind: 'at'; height: number } | { kind: 'until'; height: number | null }> {
  const rawHeight = queryString(query, 'height');
  if (rawHeight !== undefined && queryString(query, 'until_block') !== undefined) {
    throw new InputError(`query parameter height: can't handle until_block and height in the same request`);
  }
  const until = await parseUntilBlock(db, query);
  if (rawHeight === undefined) return { kind: 'until', height: until };
  return { kind: 'at', height: queryInt(query, 'height', { default: 0, min: 0, max: MAX_BLOCK_HEIGHT }) };
}
