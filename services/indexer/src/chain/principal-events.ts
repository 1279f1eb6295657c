import type { Knex } from 'knex';
import { principalEventRowsSql, principalEventsRenumberSql } from '@bda/db';
import { runPrepared } from '../write-statements';

/** Each principal whose rows a statement wrote or deleted, and the lowest height of those rows. */
interface Touched {
  principals: string[];
  heights: number[];
}

/** The principals and lowest heights of a CTE `changed (principal, block_height)`. */
const SELECT_TOUCHED = `SELECT coalesce(array_agg(principal), '{}') AS principals, coalesce(array_agg(height), '{}') AS heights
  FROM (SELECT principal, min(block_height) AS height FROM changed GROUP BY principal) a`;

/** The rows of the blocks `$1` (just joined the canonical chain), unnumbered (`seq` 0, numbered next). */
const ADD_SQL = `WITH changed AS (
    INSERT INTO principal_events (principal, block_height, event_index, index_block_hash, type_group)
    SELECT r.principal, r.block_height, r.event_index, r.index_block_hash, r.type_group
    FROM (${principalEventRowsSql('e.index_block_hash = ANY($1::text[])')}) r
    RETURNING principal, block_height
  )
  ${SELECT_TOUCHED}`;

/** Deletes the rows of the blocks `$1` (just left the canonical chain). */
const REMOVE_SQL = `WITH changed AS (
    DELETE FROM principal_events WHERE index_block_hash = ANY($1::text[]) RETURNING principal, block_height
  )
  ${SELECT_TOUCHED}`;

const RENUMBER_SQL = principalEventsRenumberSql();

async function renumber(trx: Knex.Transaction, touched: Touched | undefined): Promise<void> {
  if (!touched || touched.principals.length === 0) return;
  await runPrepared(trx, RENUMBER_SQL, [touched.principals, touched.heights]);
}

/**
 * Keeps `principal_events` (migration 088) with the canonical chain, in the transaction that flips the blocks'
 * flags: the rows of blocks that joined are inserted (or those of blocks that left deleted), then each principal
 * touched is renumbered from the lowest height changed: the new rows alone when the chain grows, the rows above too
 * when a block joins or leaves under canonical blocks.
 */
export async function refreshPrincipalEvents(trx: Knex.Transaction, blockHashes: readonly string[], sign: 1 | -1): Promise<void> {
  if (blockHashes.length === 0) return;
  const [touched] = await runPrepared<Touched>(trx, sign === 1 ? ADD_SQL : REMOVE_SQL, [[...blockHashes]]);
  await renumber(trx, touched);
}
