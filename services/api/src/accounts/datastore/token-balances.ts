import type { Knex } from 'knex';
import { KEPT_FT_PAGE_LIMIT } from '@bda/db';
import { KeyedBatchLoader } from '../../datastore/keyed-batch-loader';
import { query, statement } from '../../datastore/read-statement';

/**
 * The JSON object of one kind of balances: `{"<asset>":{"<amount>":"…","total_sent":"…","total_received":"…"},…}`
 * in asset order, written by PostgreSQL, as `JSON.stringify` writes it (no spaces; the asset name escaped by
 * `to_json`; amounts are numerics, digits only). `rows` is a query of the asset's rows.
 */
function balanceMapJson(rows: string, amount: 'balance' | 'count'): string {
  return `(SELECT coalesce('{' || string_agg(
       to_json(b.asset_identifier)::text || ':{"${amount}":"' || b.balance::text || '","total_sent":"' ||
         b.total_sent::text || '","total_received":"' || b.total_received::text || '"}',
       ',' ORDER BY b.asset_identifier) || '}', '{}') FROM (${rows}) b)`;
}

/** The newest change row of each asset of one kind at or below the height `$2` (`token_balance_changes`). */
const AT = (kind: string) =>
  `SELECT DISTINCT ON (asset_identifier) asset_identifier, balance, total_sent, total_received
   FROM token_balance_changes WHERE principal = $1 AND kind = '${kind}' AND block_height <= $2
   ORDER BY asset_identifier, block_height DESC`;

/**
 * `$1` principals: the FT and NFT maps of each now, as JSON text, one row per principal in the order given (`n`): the
 * kept texts of `token_balance_maps` (migration 099, written by the indexer with the block), `{}` for a principal
 * that never held a token.
 */
const BALANCE_MAPS_NOW = statement(
  `SELECT p.n, coalesce(m.ft, '{}') AS ft, coalesce(m.nft, '{}') AS nft
   FROM unnest($1::text[]) WITH ORDINALITY AS p(principal, n)
   LEFT JOIN token_balance_maps m ON m.principal = p.principal`,
);

/** `$1` principal, `$2` height: its FT and NFT maps at that height, as JSON text. */
const BALANCE_MAPS_AT = statement(
  `SELECT ${balanceMapJson(AT('ft'), 'balance')} AS ft, ${balanceMapJson(AT('nft'), 'count')} AS nft`,
);

/** The two maps of `/extended/v1/address/{principal}/balances` as JSON text. */
export interface TokenBalanceMapsJson {
  ft: string;
  nft: string;
}

/** The maps of several principals now, in their order, by one statement. */
async function getTokenBalanceMapsNow(db: Knex, principals: readonly string[]): Promise<TokenBalanceMapsJson[]> {
  const rows = await query<TokenBalanceMapsJson & { n: string }>(db, BALANCE_MAPS_NOW, [principals]);
  const byPosition = new Map(rows.map((r) => [Number(r.n), r]));
  return principals.map((_, i) => {
    const row = byPosition.get(i + 1)!;
    return { ft: row.ft, nft: row.nft };
  });
}

/**
 * `fungible_tokens` and `non_fungible_tokens` of `/extended/v1/address/{principal}/balances` as JSON text: every asset
 * the principal ever held, in asset order (FT: `balance` in base units; NFT: `count` of values held; both with their
 * totals sent and received), at `height` (null: the tip). At the tip the texts the indexer keeps (one row); at a
 * height PostgreSQL writes them from the change rows, so a principal with a thousand token kinds costs the api one
 * text per kind of map either way instead of a thousand rows to parse and write again.
 */
export async function getTokenBalanceMapsJson(db: Knex, principal: string, height: number | null): Promise<TokenBalanceMapsJson> {
  if (height === null) return (await getTokenBalanceMapsNow(db, [principal]))[0]!;
  const [row] = await query<TokenBalanceMapsJson>(db, BALANCE_MAPS_AT, [principal, height]);
  return row!;
}

/**
 * `$1` principals, `$2` kinds, `$3` limits, `$4` offsets, element by element (one row per request, `pos` its 1-based
 * place): how many current balances it has (migration 091's kept `token_balance_counts.kinds`, not a count of its
 * rows) and a page of them in asset order as the JSON text of the v2 answer's `results` (`[{"token":…,"balance":"…"},…]`,
 * `JSON.stringify`'s bytes: the asset by `to_json`, the balance digits only), joined from each row's kept entry
 * (`balance_json`, migration 104). The page and the offset it skips are index entries of `token_balances_by_asset`
 * (migrations 092 and 104), read index-only.
 */
const BALANCES_PAGES = statement(
  `SELECT k.pos,
          coalesce((SELECT kinds FROM token_balance_counts c WHERE c.principal = k.principal AND c.kind = k.kind), 0) AS total,
          (SELECT coalesce('[' || string_agg('{"token":' || p.balance_json, ',' ORDER BY p.asset_identifier) || ']', '[]')
           FROM (
             SELECT b.asset_identifier, b.balance_json FROM token_balances b WHERE b.principal = k.principal AND b.kind = k.kind
             ORDER BY b.asset_identifier LIMIT k.lim OFFSET k.off
           ) p) AS results
   FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[]) WITH ORDINALITY AS k(principal, kind, lim, off, pos)`,
);

/** A page of a principal's current balances of one kind, as the v2 answer's `total` and `results` JSON text. */
export interface TokenBalancePageJson {
  total: number;
  resultsJson: string;
}

interface TokenBalancePageRead {
  principal: string;
  kind: 'ft' | 'nft';
  limit: number;
  offset: number;
}

/** Several pages, in their order, by one statement. */
async function getTokenBalancePages(db: Knex, reads: readonly TokenBalancePageRead[]): Promise<TokenBalancePageJson[]> {
  const rows = await query<{ pos: string; total: number; results: string }>(db, BALANCES_PAGES, [
    reads.map((r) => r.principal),
    reads.map((r) => r.kind),
    reads.map((r) => r.limit),
    reads.map((r) => r.offset),
  ]);
  const byPosition = new Map(rows.map((r) => [Number(r.pos), r]));
  return reads.map((_, i) => {
    const row = byPosition.get(i + 1)!;
    return { total: row.total, resultsJson: row.results };
  });
}

/** A page of a principal's current balances of one kind, in asset order, as the v2 answer's `results` JSON text. */
export async function getTokenBalancePageJson(
  db: Knex,
  principal: string,
  kind: 'ft' | 'nft',
  page: { limit: number; offset: number },
): Promise<TokenBalancePageJson> {
  return (await getTokenBalancePages(db, [{ principal, kind, ...page }]))[0]!;
}

/**
 * `$1` principals: each one's first page of the v2 FT list at the kept page size, as kept with its v1 maps by the
 * indexer (`token_balance_maps.ft_first_by_asset`, migration 112: the text `BALANCES_PAGES` joins for that page), and
 * its number of FT kinds; one row per principal in the order given (`n`), an empty page for a principal without
 * tokens. One row of each table instead of a range of 100 index entries whose texts are joined per request. Each
 * row is read by a subquery, a probe of the table's primary key: as joins, the generic plan hashed the whole table
 * (a sequential scan of 2,000 rows of `token_balance_counts` on the bench database, three times the statement's cost).
 */
const KEPT_FT_FIRST_PAGES = statement(
  `SELECT p.n,
          coalesce((SELECT kinds FROM token_balance_counts c WHERE c.principal = p.principal AND c.kind = 'ft'), 0) AS total,
          coalesce((SELECT ft_first_by_asset FROM token_balance_maps m WHERE m.principal = p.principal), '[]') AS results
   FROM unnest($1::text[]) WITH ORDINALITY AS p(principal, n)`,
);

/** The kept first FT pages (offset 0, `KEPT_FT_PAGE_LIMIT` entries) of several principals, in their order. */
async function getKeptFtBalancePages(db: Knex, principals: readonly string[]): Promise<TokenBalancePageJson[]> {
  const rows = await query<{ n: string; total: number; results: string }>(db, KEPT_FT_FIRST_PAGES, [principals]);
  const byPosition = new Map(rows.map((r) => [Number(r.n), r]));
  return principals.map((_, i) => {
    const row = byPosition.get(i + 1)!;
    return { total: row.total, resultsJson: row.results };
  });
}

/**
 * The pages asked in one turn of the event loop, by one statement per form (`KeyedBatchLoader`, ADR 0028): the FT
 * first pages at the kept size from the kept texts (`getKeptFtBalancePages`, ADR 0047), the others from the index.
 */
export class TokenBalancePageLoader {
  private readonly loader: KeyedBatchLoader<TokenBalancePageJson>;
  private readonly kept: KeyedBatchLoader<TokenBalancePageJson>;

  constructor(db: Knex) {
    this.loader = new KeyedBatchLoader(async (keys) => {
      const reads = keys.map((key) => JSON.parse(key) as TokenBalancePageRead);
      const pages = await getTokenBalancePages(db, reads);
      return new Map(keys.map((key, i) => [key, pages[i]!]));
    });
    this.kept = new KeyedBatchLoader(async (principals) => {
      const pages = await getKeptFtBalancePages(db, principals);
      return new Map(principals.map((p, i) => [p, pages[i]!]));
    });
  }

  /** As `getTokenBalancePageJson`. */
  async load(principal: string, kind: 'ft' | 'nft', page: { limit: number; offset: number }): Promise<TokenBalancePageJson> {
    if (kind === 'ft' && page.offset === 0 && page.limit === KEPT_FT_PAGE_LIMIT) return (await this.kept.load(principal))!;
    const key: TokenBalancePageRead = { principal, kind, limit: page.limit, offset: page.offset };
    return (await this.loader.load(JSON.stringify(key)))!;
  }
}

const ONE_BALANCE = statement(
  `SELECT balance FROM token_balances WHERE principal = $1 AND kind = 'ft' AND asset_identifier = $2`,
);

/** The principal's current balance of one FT; '0' when it never held any. */
export async function getFtBalance(db: Knex, principal: string, asset: string): Promise<string> {
  const [row] = await query<{ balance: string }>(db, ONE_BALANCE, [principal, asset]);
  return row?.balance ?? '0';
}
