import type { Knex } from 'knex';
import { KEPT_FT_PAGE_LIMIT } from '@bda/db';
import { KeyedBatchLoader } from '../../datastore/keyed-batch-loader';
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

/** The positive FT balances of the principal `principal` (a parameter or a column). */
const ftRow = (principal: string) =>
  `SELECT asset_identifier, balance, balance_json FROM token_balances WHERE principal = ${principal} AND kind = 'ft' AND balance > 0`;
const FT_ROW = ftRow('$1');

/** The number of positive FT balances, kept by migration 091's triggers (`token_balance_counts.held`). */
const ftHeldCount = (principal: string) =>
  `coalesce((SELECT held FROM token_balance_counts c WHERE c.principal = ${principal} AND c.kind = 'ft'), 0)`;

/**
 * What both FT statements answer from their `page` (up to `$2` + 1 rows from the page's first on, numbered `n` in list
 * order): the number of positive balances; the page's first `$2` rows as the JSON text of the answer's `results`
 * (`[{"asset_identifier":…,"balance":"…"},…]`, as `JSON.stringify` writes them: the asset by `to_json`, the balance
 * digits only), joined from each row's kept entry (`balance_json`, migration 104), so the api splices one text instead
 * of parsing and writing a row per asset; the page's first row and the row after it.
 */
const ftPageColumns = (principal: string, limit: string) => `${ftHeldCount(principal)} AS total,
          coalesce('[' || string_agg('{"asset_identifier":' || balance_json, ',' ORDER BY n) FILTER (WHERE n <= ${limit}) || ']',
            '[]') AS results,
          min(asset_identifier) FILTER (WHERE n = 1) AS current_asset, min(balance::text) FILTER (WHERE n = 1) AS current_balance,
          min(asset_identifier) FILTER (WHERE n = ${limit} + 1) AS next_asset,
          min(balance::text) FILTER (WHERE n = ${limit} + 1) AS next_balance`;
const FT_PAGE_ANSWER = `numbered AS (
     SELECT asset_identifier, balance, balance_json, row_number() OVER (ORDER BY balance DESC, asset_identifier) AS n FROM page
   )
   SELECT ${ftPageColumns('$1', '$2')}`;

/**
 * `/extended/v3/principals/{principal}/balances/ft`, first pages (`$1` principals, `$2` limits, element by element: one
 * row per request, `pos` its 1-based place): each principal's positive FT balances, largest first (then asset order),
 * one row more than the page, read in that order from the index `token_balances_by_balance`; and their number (one row
 * of `token_balance_counts`). Neither grows with the number of kinds it holds.
 */
const FT_POSITIONS_FIRST = statement(
  `SELECT k.pos, a.*
   FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS k(principal, lim, pos)
   CROSS JOIN LATERAL (
     SELECT ${ftPageColumns('k.principal', 'k.lim')}, NULL AS before_asset, NULL AS before_balance
     FROM (
       SELECT asset_identifier, balance, balance_json, row_number() OVER (ORDER BY balance DESC, asset_identifier) AS n
       FROM (${ftRow('k.principal')} ORDER BY balance DESC, asset_identifier LIMIT k.lim + 1) page
     ) numbered
   ) a`,
);

/**
 * The same from a cursor (`$3` its balance, `$4` its asset): the rows from the cursor's on, and the first row of the
 * page before, when the page has rows (the page before ends at the row before the cursor's place: the page's first
 * row is the first one at or after it). The index keeps balances descending and assets ascending, so "after
 * (balance, asset)" is two ranges of it: the same balance from the asset on, then the smaller balances; the page
 * before likewise backwards. Each range reads at most a page of index entries.
 */
const FT_POSITIONS_AFTER = statement(
  `WITH page AS (
     SELECT * FROM (
       (${FT_ROW} AND balance = $3::numeric AND asset_identifier >= $4::text ORDER BY asset_identifier LIMIT $2::integer + 1)
       UNION ALL
       (${FT_ROW} AND balance < $3::numeric ORDER BY balance DESC, asset_identifier LIMIT $2::integer + 1)
     ) r ORDER BY balance DESC, asset_identifier LIMIT $2::integer + 1
   ),
   before AS (
     SELECT * FROM (
       (${FT_ROW} AND balance = $3::numeric AND asset_identifier < $4::text ORDER BY asset_identifier DESC LIMIT $2)
       UNION ALL
       (${FT_ROW} AND balance > $3::numeric ORDER BY balance, asset_identifier DESC LIMIT $2)
     ) r WHERE EXISTS (SELECT 1 FROM page) ORDER BY balance, asset_identifier DESC LIMIT $2
   ),
   farthest AS (SELECT * FROM before ORDER BY balance DESC, asset_identifier LIMIT 1),
   ${FT_PAGE_ANSWER},
          (SELECT asset_identifier FROM farthest) AS before_asset, (SELECT balance::text FROM farthest) AS before_balance
   FROM numbered`,
);

/** A page of `/extended/v3/principals/{principal}/balances/ft`, its rows as the answer's JSON text. */
export interface FtPositionsJson {
  total: number;
  /** The page's rows (at most `limit`) as the JSON text of the answer's `results`, `JSON.stringify`'s bytes. */
  resultsJson: string;
  /** The page's first row, null when it has none. */
  current: DbFtPosition | null;
  /** The first row of the page after, null when the page ends the list. */
  next: DbFtPosition | null;
  /** The first row of the page before, null when the page starts the list. */
  before: DbFtPosition | null;
}

type FtPositionsRow = { total: string; results: string } & Record<
  `${'current' | 'next' | 'before'}_${'asset' | 'balance'}`,
  string | null
>;

function toFtPositionsJson(row: FtPositionsRow): FtPositionsJson {
  const position = (asset: string | null, balance: string | null): DbFtPosition | null =>
    asset === null ? null : { asset_identifier: asset, balance: balance! };
  return {
    total: Number(row.total),
    resultsJson: row.results,
    current: position(row.current_asset, row.current_balance),
    next: position(row.next_asset, row.next_balance),
    before: position(row.before_asset, row.before_balance),
  };
}

/** The first pages of several principals (and page sizes), in their order, by one statement. */
async function getFtFirstPages(db: Knex, reads: ReadonlyArray<{ principal: string; limit: number }>): Promise<FtPositionsJson[]> {
  const rows = await query<FtPositionsRow & { pos: string }>(db, FT_POSITIONS_FIRST, [
    reads.map((r) => r.principal),
    reads.map((r) => r.limit),
  ]);
  const byPosition = new Map(rows.map((r) => [Number(r.pos), r]));
  return reads.map((_, i) => toFtPositionsJson(byPosition.get(i + 1)!));
}

export async function getFtPositionsJson(
  db: Knex,
  principal: string,
  limit: number,
  cursor: { balance: string; asset: string } | null,
): Promise<FtPositionsJson> {
  if (cursor === null) return (await getFtFirstPages(db, [{ principal, limit }]))[0]!;
  const [row] = await query<FtPositionsRow>(db, FT_POSITIONS_AFTER, [principal, limit, cursor.balance, cursor.asset]);
  return toFtPositionsJson(row!);
}

/**
 * `$1` principals: each one's first page of the v3 FT list at the kept page size, as kept with its v1 maps by the
 * indexer (migration 112: `ft_first_by_balance`, the text `FT_POSITIONS_FIRST` joins for that page, and the page's
 * first row and the row after it as `<balance>:<asset>`), and its number of positive balances; one row per principal
 * in the order given (`n`), an empty page for a principal without tokens. Each row is read by a probe of the table's
 * primary key (a subquery; the `LATERAL` kept from being flattened by `OFFSET 0`): as joins, the generic plan hashed
 * the whole table instead (`KEPT_FT_FIRST_PAGES`).
 */
const KEPT_FT_POSITIONS_FIRST = statement(
  `SELECT p.n, ${ftHeldCount('p.principal')} AS total, coalesce(m.ft_first_by_balance, '[]') AS results,
          m.ft_first_current AS current, m.ft_first_next AS next
   FROM unnest($1::text[]) WITH ORDINALITY AS p(principal, n)
   LEFT JOIN LATERAL (
     SELECT ft_first_by_balance, ft_first_current, ft_first_next FROM token_balance_maps m WHERE m.principal = p.principal
     OFFSET 0
   ) m ON true`,
);

/** A kept cursor key, `<balance>:<asset>` (the balance digits only, so its first colon ends it), as a row. */
function keptPosition(key: string | null): DbFtPosition | null {
  if (key === null) return null;
  const colon = key.indexOf(':');
  return { balance: key.slice(0, colon), asset_identifier: key.slice(colon + 1) };
}

/** The kept first pages (`KEPT_FT_PAGE_LIMIT` rows) of several principals, in their order. */
async function getKeptFtFirstPages(db: Knex, principals: readonly string[]): Promise<FtPositionsJson[]> {
  const rows = await query<{ n: string; total: number; results: string; current: string | null; next: string | null }>(
    db,
    KEPT_FT_POSITIONS_FIRST,
    [principals],
  );
  const byPosition = new Map(rows.map((r) => [Number(r.n), r]));
  return principals.map((_, i) => {
    const row = byPosition.get(i + 1)!;
    return {
      total: Number(row.total),
      resultsJson: row.results,
      current: keptPosition(row.current),
      next: keptPosition(row.next),
      before: null,
    };
  });
}

/**
 * The first pages of `/extended/v3/principals/{principal}/balances/ft` asked in one turn of the event loop, by one
 * statement per form (`KeyedBatchLoader`, ADR 0028): at the kept page size from the kept texts (`getKeptFtFirstPages`,
 * ADR 0047), at other sizes from the index; a page from a cursor is a statement of its own (`getFtPositionsJson`).
 */
export class FtFirstPageLoader {
  private readonly loader: KeyedBatchLoader<FtPositionsJson>;
  private readonly kept: KeyedBatchLoader<FtPositionsJson>;

  constructor(db: Knex) {
    this.loader = new KeyedBatchLoader(async (keys) => {
      const reads = keys.map((key) => {
        const at = key.indexOf('@');
        return { limit: Number(key.slice(0, at)), principal: key.slice(at + 1) };
      });
      const pages = await getFtFirstPages(db, reads);
      return new Map(keys.map((key, i) => [key, pages[i]!]));
    });
    this.kept = new KeyedBatchLoader(async (principals) => {
      const pages = await getKeptFtFirstPages(db, principals);
      return new Map(principals.map((p, i) => [p, pages[i]!]));
    });
  }

  /** As `getFtPositionsJson` without a cursor. */
  async load(principal: string, limit: number): Promise<FtPositionsJson> {
    if (limit === KEPT_FT_PAGE_LIMIT) return (await this.kept.load(principal))!;
    return (await this.loader.load(`${limit}@${principal}`))!;
  }
}

export interface DbNftPosition {
  asset_identifier: string;
  value_hex: string;
}

const nftRow = (owner: string) => `SELECT asset_identifier, value_hex FROM nft_holdings WHERE owner = ${owner}`;
const NFT_ROW = nftRow('$1');
const nftHeldCount = (owner: string) => `coalesce((SELECT held FROM nft_holding_counts c WHERE c.owner = ${owner}), 0)`;
const NFT_HELD_COUNT = nftHeldCount('$1');

/**
 * `/extended/v3/principals/{principal}/balances/nft`, first pages (`$1` principals, `$2` limits, element by element,
 * `pos` the request's 1-based place): the NFT values each holds now in asset and value order, one row more than the
 * page (one range of `nft_holdings_owner`, migration 092), and their number (one row of `nft_holding_counts`); a
 * request with no value is one row of nulls.
 */
const NFT_POSITIONS_FIRST = statement(
  `SELECT k.pos, ${nftHeldCount('k.principal')} AS total, p.asset_identifier, p.value_hex,
          NULL AS before_asset, NULL AS before_value
   FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS k(principal, lim, pos)
   LEFT JOIN LATERAL (${nftRow('k.principal')} ORDER BY asset_identifier, value_hex LIMIT k.lim + 1) p ON true
   ORDER BY k.pos, p.asset_identifier, p.value_hex`,
);

/**
 * The same from a cursor (`$3` its asset, `$4` its value): the rows from the cursor's on, and the first row of the
 * page before (the page before ends at the row before the cursor's place), when the page has rows. Each one range of
 * the index, forward and backward.
 */
const NFT_POSITIONS_AFTER = statement(
  `WITH page AS (
     ${NFT_ROW} AND (asset_identifier, value_hex) >= ($3::text, $4::text)
     ORDER BY asset_identifier, value_hex LIMIT $2::integer + 1
   ),
   before AS (
     ${NFT_ROW} AND (asset_identifier, value_hex) < ($3::text, $4::text) AND EXISTS (SELECT 1 FROM page)
     ORDER BY asset_identifier DESC, value_hex DESC LIMIT $2
   ),
   farthest AS (SELECT * FROM before ORDER BY asset_identifier, value_hex LIMIT 1)
   SELECT ${NFT_HELD_COUNT} AS total, p.asset_identifier, p.value_hex,
          (SELECT asset_identifier FROM farthest) AS before_asset, (SELECT value_hex FROM farthest) AS before_value
   FROM (SELECT 1) one LEFT JOIN page p ON true
   ORDER BY p.asset_identifier, p.value_hex`,
);

type NftPositionsRow = {
  total: string;
  asset_identifier: string | null;
  value_hex: string | null;
  before_asset: string | null;
  before_value: string | null;
};

function toNftPositions(rows: NftPositionsRow[]): PositionPage<DbNftPosition> {
  const first = rows[0]!;
  return {
    total: Number(first.total),
    rows: rows
      .filter((r) => r.asset_identifier !== null)
      .map((r) => ({ asset_identifier: r.asset_identifier!, value_hex: r.value_hex! })),
    before: first.before_asset === null ? null : { asset_identifier: first.before_asset, value_hex: first.before_value! },
  };
}

/** The first pages of several principals (and page sizes), in their order, by one statement. */
async function getNftFirstPages(
  db: Knex,
  reads: ReadonlyArray<{ principal: string; limit: number }>,
): Promise<Array<PositionPage<DbNftPosition>>> {
  const rows = await query<NftPositionsRow & { pos: string }>(db, NFT_POSITIONS_FIRST, [
    reads.map((r) => r.principal),
    reads.map((r) => r.limit),
  ]);
  const byPosition = new Map<number, NftPositionsRow[]>();
  for (const r of rows) {
    const pos = Number(r.pos);
    const list = byPosition.get(pos);
    if (list) list.push(r);
    else byPosition.set(pos, [r]);
  }
  return reads.map((_, i) => toNftPositions(byPosition.get(i + 1)!));
}

export async function getNftPositions(
  db: Knex,
  principal: string,
  limit: number,
  cursor: { asset: string; value: string } | null,
): Promise<PositionPage<DbNftPosition>> {
  if (cursor === null) return (await getNftFirstPages(db, [{ principal, limit }]))[0]!;
  return toNftPositions(await query<NftPositionsRow>(db, NFT_POSITIONS_AFTER, [principal, limit, cursor.asset, cursor.value]));
}

/**
 * The first pages of `/extended/v3/principals/{principal}/balances/nft` asked in one turn of the event loop, by one
 * statement (`KeyedBatchLoader`, ADR 0028); a page from a cursor is a statement of its own (`getNftPositions`).
 */
export class NftFirstPageLoader {
  private readonly loader: KeyedBatchLoader<PositionPage<DbNftPosition>>;

  constructor(db: Knex) {
    this.loader = new KeyedBatchLoader(async (keys) => {
      const reads = keys.map((key) => {
        const at = key.indexOf('@');
        return { limit: Number(key.slice(0, at)), principal: key.slice(at + 1) };
      });
      const pages = await getNftFirstPages(db, reads);
      return new Map(keys.map((key, i) => [key, pages[i]!]));
    });
  }

  /** As `getNftPositions` without a cursor. */
  async load(principal: string, limit: number): Promise<PositionPage<DbNftPosition>> {
    return (await this.loader.load(`${limit}@${principal}`))!;
  }
}
