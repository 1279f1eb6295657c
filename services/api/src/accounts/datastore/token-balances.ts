import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

/** A principal's balance of one asset (`kind` ft: base units; nft: values held), decimal strings. */
export interface DbTokenBalance {
  asset_identifier: string;
  balance: string;
  total_sent: string;
  total_received: string;
}

/**
 * `$1` principal, `$2` kind, `$3` height: the newest change row of each of its assets at or below the height. Used
 * for a height below the tip; at the tip `token_balances` answers from one index range.
 */
const BALANCES_AT = statement(
  `SELECT DISTINCT ON (asset_identifier) asset_identifier, balance, total_sent, total_received
   FROM token_balance_changes
   WHERE principal = $1 AND kind = $2 AND block_height <= $3
   ORDER BY asset_identifier, block_height DESC`,
);

const BALANCES_NOW = statement(
  `SELECT asset_identifier, balance, total_sent, total_received FROM token_balances
   WHERE principal = $1 AND kind = $2 ORDER BY asset_identifier`,
);

/** Every asset of `kind` the principal ever held, at `height` (null: the tip), in asset order. */
export async function getTokenBalances(
  db: Knex,
  principal: string,
  kind: 'ft' | 'nft',
  height: number | null,
): Promise<DbTokenBalance[]> {
  return height === null
    ? query<DbTokenBalance>(db, BALANCES_NOW, [principal, kind])
    : query<DbTokenBalance>(db, BALANCES_AT, [principal, kind, height]);
}

/** `$1` principal, `$2` kind, `$3` limit, `$4` offset: a page of its current balances and how many there are. */
const BALANCES_PAGE = statement(
  `SELECT (SELECT count(*) FROM token_balances WHERE principal = $1 AND kind = $2)::integer AS total,
          p.asset_identifier, p.balance
   FROM (SELECT 1) one
   LEFT JOIN LATERAL (
     SELECT asset_identifier, balance FROM token_balances WHERE principal = $1 AND kind = $2
     ORDER BY asset_identifier LIMIT $3 OFFSET $4
   ) p ON true`,
);

export async function getTokenBalancePage(
  db: Knex,
  principal: string,
  kind: 'ft' | 'nft',
  page: { limit: number; offset: number },
): Promise<{ total: number; results: Array<{ asset_identifier: string; balance: string }> }> {
  const rows = await query<{ total: number; asset_identifier: string | null; balance: string | null }>(db, BALANCES_PAGE, [
    principal,
    kind,
    page.limit,
    page.offset,
  ]);
  return {
    total: rows[0]?.total ?? 0,
    results: rows
      .filter((r) => r.asset_identifier !== null)
      .map((r) => ({ asset_identifier: r.asset_identifier!, balance: r.balance! })),
  };
}

const ONE_BALANCE = statement(
  `SELECT balance FROM token_balances WHERE principal = $1 AND kind = 'ft' AND asset_identifier = $2`,
);

/** The principal's current balance of one FT; '0' when it never held any. */
export async function getFtBalance(db: Knex, principal: string, asset: string): Promise<string> {
  const [row] = await query<{ balance: string }>(db, ONE_BALANCE, [principal, asset]);
  return row?.balance ?? '0';
}
