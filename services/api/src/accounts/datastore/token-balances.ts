import type { Knex } from 'knex';
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

/** The current rows of one kind (`token_balances`, one index range). */
const NOW = (kind: string) =>
  `SELECT asset_identifier, balance, total_sent, total_received FROM token_balances WHERE principal = $1 AND kind = '${kind}'`;

/** The newest change row of each asset of one kind at or below the height `$2` (`token_balance_changes`). */
const AT = (kind: string) =>
  `SELECT DISTINCT ON (asset_identifier) asset_identifier, balance, total_sent, total_received
   FROM token_balance_changes WHERE principal = $1 AND kind = '${kind}' AND block_height <= $2
   ORDER BY asset_identifier, block_height DESC`;

/** `$1` principal: its FT and NFT maps now, as JSON text. */
const BALANCE_MAPS_NOW = statement(
  `SELECT ${balanceMapJson(NOW('ft'), 'balance')} AS ft, ${balanceMapJson(NOW('nft'), 'count')} AS nft`,
);

/** `$1` principal, `$2` height: its FT and NFT maps at that height, as JSON text. */
const BALANCE_MAPS_AT = statement(
  `SELECT ${balanceMapJson(AT('ft'), 'balance')} AS ft, ${balanceMapJson(AT('nft'), 'count')} AS nft`,
);

/**
 * `fungible_tokens` and `non_fungible_tokens` of `/extended/v1/address/{principal}/balances` as JSON text: every asset
 * the principal ever held, in asset order (FT: `balance` in base units; NFT: `count` of values held; both with their
 * totals sent and received), at `height` (null: the tip). One statement; PostgreSQL writes the JSON, so a principal
 * with a thousand token kinds costs the api one text per kind of map instead of a thousand rows to parse and write
 * again.
 */
export async function getTokenBalanceMapsJson(
  db: Knex,
  principal: string,
  height: number | null,
): Promise<{ ft: string; nft: string }> {
  const [row] = await (height === null
    ? query<{ ft: string; nft: string }>(db, BALANCE_MAPS_NOW, [principal])
    : query<{ ft: string; nft: string }>(db, BALANCE_MAPS_AT, [principal, height]));
  return row!;
}

/**
 * `$1` principal, `$2` kind, `$3` limit, `$4` offset: how many current balances it has (migration 091's kept
 * `token_balance_counts.kinds`, not a count of its rows) and a page of them in asset order as the JSON text of the v2
 * answer's `results` (`[{"token":…,"balance":"…"},…]`, `JSON.stringify`'s bytes: the asset by `to_json`, the balance
 * digits only). The page and the offset it skips are index entries of `token_balances_by_asset` (migration 092), read
 * index-only.
 */
const BALANCES_PAGE = statement(
  `SELECT coalesce((SELECT kinds FROM token_balance_counts WHERE principal = $1 AND kind = $2), 0) AS total,
          (SELECT coalesce('[' || string_agg('{"token":' || to_json(p.asset_identifier)::text || ',"balance":"' ||
                                             p.balance::text || '"}', ',' ORDER BY p.asset_identifier) || ']', '[]')
           FROM (
             SELECT asset_identifier, balance FROM token_balances WHERE principal = $1 AND kind = $2
             ORDER BY asset_identifier LIMIT $3 OFFSET $4
           ) p) AS results`,
);

/** A page of a principal's current balances of one kind, in asset order, as the v2 answer's `results` JSON text. */
export async function getTokenBalancePageJson(
  db: Knex,
  principal: string,
  kind: 'ft' | 'nft',
  page: { limit: number; offset: number },
): Promise<{ total: number; resultsJson: string }> {
  const [row] = await query<{ total: number; results: string }>(db, BALANCES_PAGE, [principal, kind, page.limit, page.offset]);
  return { total: row!.total, resultsJson: row!.results };
}

const ONE_BALANCE = statement(
  `SELECT balance FROM token_balances WHERE principal = $1 AND kind = 'ft' AND asset_identifier = $2`,
);

/** The principal's current balance of one FT; '0' when it never held any. */
export async function getFtBalance(db: Knex, principal: string, asset: string): Promise<string> {
  const [row] = await query<{ balance: string }>(db, ONE_BALANCE, [principal, asset]);
  return row?.balance ?? '0';
}
