import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

/** A key of a cursor-paginated list and the page's rows, with the key the page before starts at. */
export interface PositionPage<T> {
  total: number;
  /** The page's rows and, when there is one, the first row of the page after (limit + 1 rows at most). */
  rows: T[];
  /** The first row of the page before, null when the page starts the list. */
  before: T | null;
}

export interface DbFtPosition {
  asset_identifier: string;
  balance: string;
}

const FT_HELD = `principal = $1 AND kind = 'ft' AND balance > 0`;

/**
 * `/extended/v3/principals/{principal}/balances/ft` (`$1` principal, `$2` limit, `$3`/`$4` the cursor's balance and
 * asset, null without one): its positive FT balances, largest first (then asset order), from the cursor's row on, one
 * row more than the page; their number; and the first row of the page before (index `token_balances_by_balance`),
 * looked for only when there is a cursor (without one the page is the list's first: a one-time filter of the plan).
 */
const FT_POSITIONS = statement(
  `WITH page AS (
     SELECT asset_identifier, balance FROM token_balances
     WHERE ${FT_HELD}
       AND ($3::numeric IS NULL OR balance < $3::numeric OR (balance = $3::numeric AND asset_identifier >= $4::text))
     ORDER BY balance DESC, asset_identifier LIMIT $2::integer + 1
   ),
   first AS (SELECT * FROM page ORDER BY balance DESC, asset_identifier LIMIT 1),
   before AS (
     SELECT b.* FROM (
       SELECT t.asset_identifier, t.balance FROM token_balances t, first f
       WHERE $3::numeric IS NOT NULL AND t.principal = $1 AND t.kind = 'ft' AND t.balance > 0
         AND (t.balance > f.balance OR (t.balance = f.balance AND t.asset_identifier < f.asset_identifier))
       ORDER BY t.balance, t.asset_identifier DESC LIMIT $2
     ) b ORDER BY b.balance DESC, b.asset_identifier LIMIT 1
   )
   SELECT (SELECT count(*) FROM token_balances WHERE ${FT_HELD}) AS total,
          p.asset_identifier, p.balance::text AS balance,
          (SELECT asset_identifier FROM before) AS before_asset, (SELECT balance::text FROM before) AS before_balance
   FROM (SELECT 1) one LEFT JOIN page p ON true
   ORDER BY p.balance DESC, p.asset_identifier`,
);

export async function getFtPositions(
  db: Knex,
  principal: string,
  limit: number,
  cursor: { balance: string; asset: string } | null,
): Promise<PositionPage<DbFtPosition>> {
  type Row = {
    total: string;
    asset_identifier: string | null;
    balance: string | null;
    before_asset: string | null;
    before_balance: string | null;
  };
  const rows = await query<Row>(db, FT_POSITIONS, [principal, limit, cursor?.balance ?? null, cursor?.asset ?? null]);
  const first = rows[0]!;
  return {
    total: Number(first.total),
    rows: rows
      .filter((r) => r.asset_identifier !== null)
      .map((r) => ({ asset_identifier: r.asset_identifier!, balance: r.balance! })),
    before: first.before_asset === null ? null : { asset_identifier: first.before_asset, balance: first.before_balance! },
  };
}

export interface DbNftPosition {
  asset_identifier: string;
  value_hex: string;
}

/** The NFT values a principal (`$1`) holds now: rows leaving it the owner with no newer row for the same value. */
const NFT_HELD = `SELECT c.asset_identifier, c.value_hex FROM nft_owner_changes c
   WHERE c.owner = $1 AND NOT EXISTS (
     SELECT 1 FROM nft_owner_changes n
     WHERE n.asset_identifier = c.asset_identifier AND n.value_hex = c.value_hex
       AND (n.block_height, n.event_index) > (c.block_height, c.event_index)
   )`;

/**
 * `/extended/v3/principals/{principal}/balances/nft` (`$1` principal, `$2` limit, `$3`/`$4` the cursor's asset and
 * value, null without one): the NFT values it holds in asset and value order, from the cursor's row on, one row more
 * than the page; their number; and the first row of the page before. Read from `nft_owner_changes` (ADR 0024).
 */
const NFT_POSITIONS = statement(
  `WITH held AS MATERIALIZED (${NFT_HELD}),
   page AS (
     SELECT * FROM held
     WHERE $3::text IS NULL OR (asset_identifier, value_hex) >= ($3::text, $4::text)
     ORDER BY asset_identifier, value_hex LIMIT $2::integer + 1
   ),
   first AS (SELECT * FROM page ORDER BY asset_identifier, value_hex LIMIT 1),
   before AS (
     SELECT b.* FROM (
       SELECT h.* FROM held h, first f WHERE (h.asset_identifier, h.value_hex) < (f.asset_identifier, f.value_hex)
       ORDER BY h.asset_identifier DESC, h.value_hex DESC LIMIT $2
     ) b ORDER BY b.asset_identifier, b.value_hex LIMIT 1
   )
   SELECT (SELECT count(*) FROM held) AS total, p.asset_identifier, p.value_hex,
          (SELECT asset_identifier FROM before) AS before_asset, (SELECT value_hex FROM before) AS before_value
   FROM (SELECT 1) one LEFT JOIN page p ON true
   ORDER BY p.asset_identifier, p.value_hex`,
);

export async function getNftPositions(
  db: Knex,
  principal: string,
  limit: number,
  cursor: { asset: string; value: string } | null,
): Promise<PositionPage<DbNftPosition>> {
  type Row = {
    total: string;
    asset_identifier: string | null;
    value_hex: string | null;
    before_asset: string | null;
    before_value: string | null;
  };
  const rows = await query<Row>(db, NFT_POSITIONS, [principal, limit, cursor?.asset ?? null, cursor?.value ?? null]);
  const first = rows[0]!;
  return {
    total: Number(first.total),
    rows: rows
      .filter((r) => r.asset_identifier !== null)
      .map((r) => ({ asset_identifier: r.asset_identifier!, value_hex: r.value_hex! })),
    before: first.before_asset === null ? null : { asset_identifier: first.before_asset, value_hex: first.before_value! },
  };
}
