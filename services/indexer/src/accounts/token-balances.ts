import type { Knex } from 'knex';
import { ftFirstPagesSql } from '@bda/db';
import { runPrepared } from '../write-statements';
import { EFFECTIVE_EVENTS_SQL } from './effective-events';

/**
 * What one block changes in each (principal, kind, asset): FT transfers, mints and burns by their amount, NFT ones
 * by 1 (a value held counts 1).
 */
const TOKEN_DELTAS_CTE = `ev AS (${EFFECTIVE_EVENTS_SQL}),
     typed AS (
       SELECT ev.*, CASE WHEN left(type, 3) = 'ft_' THEN 'ft' ELSE 'nft' END AS kind,
              CASE WHEN left(type, 3) = 'ft_' THEN coalesce(amount, 0) ELSE 1 END AS units
       FROM ev
       WHERE type IN ('ft_transfer_event', 'ft_mint_event', 'ft_burn_event', 'nft_transfer_event', 'nft_mint_event',
                      'nft_burn_event') AND asset_identifier IS NOT NULL
     ),
     parts (principal, kind, asset_identifier, sent, received) AS (
       SELECT sender, kind, asset_identifier, units, 0 FROM typed
        WHERE type IN ('ft_transfer_event', 'ft_burn_event', 'nft_transfer_event', 'nft_burn_event') AND sender IS NOT NULL
       UNION ALL
       SELECT recipient, kind, asset_identifier, 0, units FROM typed
        WHERE type IN ('ft_transfer_event', 'ft_mint_event', 'nft_transfer_event', 'nft_mint_event') AND recipient IS NOT NULL
     ),
     delta AS (
       SELECT principal, kind, asset_identifier, sum(sent) AS sent, sum(received) AS received,
              sum(received) - sum(sent) AS balance
       FROM parts GROUP BY principal, kind, asset_identifier
     )`;

const SAME_KEY = (a: string, b: string) =>
  `${a}.principal = ${b}.principal AND ${a}.kind = ${b}.kind AND ${a}.asset_identifier = ${b}.asset_identifier`;

/**
 * Adds block `$1` at height `$2` (as `stx-balances.ts` does for STX); returns the keys it touched. Data-modifying CTEs
 * run to completion whether or not the final SELECT reads them.
 */
const ADD_TOKEN_BLOCK_SQL = `WITH ${TOKEN_DELTAS_CTE},
     inserted AS (
       INSERT INTO token_balance_changes (principal, asset_identifier, kind, block_height, index_block_hash, balance,
                                          total_sent, total_received)
       SELECT d.principal, d.asset_identifier, d.kind, $2, $1, coalesce(p.balance, 0) + d.balance,
              coalesce(p.total_sent, 0) + d.sent, coalesce(p.total_received, 0) + d.received
       FROM delta d
       LEFT JOIN LATERAL (
         SELECT * FROM token_balance_changes c WHERE ${SAME_KEY('c', 'd')} AND c.block_height < $2
         ORDER BY c.block_height DESC LIMIT 1
       ) p ON true
       RETURNING 1
     ),
     shifted AS (
       UPDATE token_balance_changes c SET balance = c.balance + d.balance, total_sent = c.total_sent + d.sent,
              total_received = c.total_received + d.received
       FROM delta d WHERE ${SAME_KEY('c', 'd')} AND c.block_height > $2
       RETURNING 1
     )
     SELECT principal, kind, asset_identifier FROM delta`;

/** Removes block `$1`'s rows, takes their change off the rows above; returns the keys it touched. */
const REMOVE_TOKEN_BLOCK_SQL = `WITH gone AS (
       DELETE FROM token_balance_changes WHERE index_block_hash = $1 RETURNING *
     ),
     delta AS (
       SELECT g.principal, g.kind, g.asset_identifier, g.block_height, g.balance - coalesce(p.balance, 0) AS balance,
              g.total_sent - coalesce(p.total_sent, 0) AS sent, g.total_received - coalesce(p.total_received, 0) AS received
       FROM gone g
       LEFT JOIN LATERAL (
         SELECT * FROM token_balance_changes c WHERE ${SAME_KEY('c', 'g')} AND c.block_height < g.block_height
         ORDER BY c.block_height DESC LIMIT 1
       ) p ON true
     ),
     shifted AS (
       UPDATE token_balance_changes c SET balance = c.balance - d.balance, total_sent = c.total_sent - d.sent,
              total_received = c.total_received - d.received
       FROM delta d WHERE ${SAME_KEY('c', 'd')} AND c.block_height > d.block_height
       RETURNING 1
     )
     SELECT principal, kind, asset_identifier FROM delta`;

/** Sets `token_balances` of the given keys from their newest change row, or deletes them when none is left. */
const REFRESH_CURRENT_SQL = `WITH keys AS (
       SELECT DISTINCT * FROM unnest($1::text[], $2::text[], $3::text[]) AS k(principal, kind, asset_identifier)
     ),
     newest AS (
       SELECT k.principal, k.kind, k.asset_identifier, n.block_height, n.balance, n.total_sent, n.total_received
       FROM keys k
       LEFT JOIN LATERAL (
         SELECT * FROM token_balance_changes c WHERE ${SAME_KEY('c', 'k')} ORDER BY c.block_height DESC LIMIT 1
       ) n ON true
     ),
     deleted AS (
       DELETE FROM token_balances b USING newest n WHERE n.block_height IS NULL AND ${SAME_KEY('b', 'n')} RETURNING 1
     ),
     upserted AS (
       INSERT INTO token_balances (principal, kind, asset_identifier, block_height, balance, total_sent, total_received)
       SELECT principal, kind, asset_identifier, block_height, balance, total_sent, total_received
       FROM newest WHERE block_height IS NOT NULL
       ON CONFLICT (principal, kind, asset_identifier) DO UPDATE SET block_height = excluded.block_height,
         balance = excluded.balance, total_sent = excluded.total_sent, total_received = excluded.total_received
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM deleted) AS deleted, (SELECT count(*) FROM upserted) AS upserted`;

/** One entry of a v1 `/balances` map, from a `token_balances` row: `"<asset>":{"<amount>":"…","total_sent":"…",…}`. */
const MAP_ENTRY = (amount: 'balance' | 'count') =>
  `to_json(b.asset_identifier)::text || ':{"${amount}":"' || b.balance::text || '","total_sent":"' ||
   b.total_sent::text || '","total_received":"' || b.total_received::text || '"}'`;

/**
 * Writes `token_balance_maps` (migration 099) again for the principals `$1` from their `token_balances` rows, or
 * deletes a principal's row when it has none left: its v1 `/balances` maps as the answer's JSON text, in asset order,
 * and the first pages of its v2 and v3 FT lists with the v3 page's cursors (migration 112, `ftFirstPagesSql`). A row
 * whose texts did not change is not written.
 */
const REFRESH_MAPS_SQL = `WITH principals AS (SELECT DISTINCT unnest($1::text[]) AS principal),
     built AS (
       SELECT p.principal, m.kinds,
              coalesce('{' || m.ft || '}', '{}') AS ft, coalesce('{' || m.nft || '}', '{}') AS nft,
              ${ftFirstPagesSql('p.principal')}
       FROM principals p
       CROSS JOIN LATERAL (
         SELECT count(*) AS kinds,
                string_agg(${MAP_ENTRY('balance')}, ',' ORDER BY b.asset_identifier) FILTER (WHERE b.kind = 'ft') AS ft,
                string_agg(${MAP_ENTRY('count')}, ',' ORDER BY b.asset_identifier) FILTER (WHERE b.kind = 'nft') AS nft
         FROM token_balances b WHERE b.principal = p.principal
       ) m
     ),
     deleted AS (
       DELETE FROM token_balance_maps t USING built b WHERE b.kinds = 0 AND t.principal = b.principal RETURNING 1
     ),
     upserted AS (
       INSERT INTO token_balance_maps AS t (principal, ft, nft, ft_first_by_asset, ft_first_by_balance, ft_first_current, ft_first_next)
       SELECT principal, ft, nft, ft_first_by_asset, ft_first_by_balance, ft_first_current, ft_first_next FROM built WHERE kinds > 0
       ON CONFLICT (principal) DO UPDATE SET ft = excluded.ft, nft = excluded.nft,
         ft_first_by_asset = excluded.ft_first_by_asset, ft_first_by_balance = excluded.ft_first_by_balance,
         ft_first_current = excluded.ft_first_current, ft_first_next = excluded.ft_first_next
       WHERE (t.ft, t.nft, t.ft_first_by_asset, t.ft_first_by_balance, t.ft_first_current, t.ft_first_next)
         IS DISTINCT FROM (excluded.ft, excluded.nft, excluded.ft_first_by_asset, excluded.ft_first_by_balance,
                           excluded.ft_first_current, excluded.ft_first_next)
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM deleted) AS deleted, (SELECT count(*) FROM upserted) AS upserted`;

interface TokenKey {
  principal: string;
  kind: string;
  asset_identifier: string;
}

export async function addTokenBlock(trx: Knex.Transaction, indexBlockHash: string, height: number): Promise<TokenKey[]> {
  return runPrepared<TokenKey & Record<string, unknown>>(trx, ADD_TOKEN_BLOCK_SQL, [indexBlockHash, height]);
}

export async function removeTokenBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<TokenKey[]> {
  return runPrepared<TokenKey & Record<string, unknown>>(trx, REMOVE_TOKEN_BLOCK_SQL, [indexBlockHash]);
}

/**
 * Brings `token_balances` in line with the change rows for `keys` (after every block of a batch is added or removed),
 * then the v1 `/balances` maps and the kept first FT pages of their principals (`token_balance_maps`) in line with
 * `token_balances`: two statements, the second reads what the first wrote.
 */
export async function refreshTokenBalances(trx: Knex.Transaction, keys: readonly TokenKey[]): Promise<void> {
  if (keys.length === 0) return;
  await runPrepared(trx, REFRESH_CURRENT_SQL, [
    keys.map((k) => k.principal),
    keys.map((k) => k.kind),
    keys.map((k) => k.asset_identifier),
  ]);
  await runPrepared(trx, REFRESH_MAPS_SQL, [[...new Set(keys.map((k) => k.principal))]]);
}
