import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError } from '@bda/common';
import { clarityValueView } from '../../codec';
import { echo, parsePrincipal, queryInt, queryString } from '../../params';
import {
  FtFirstPageLoader,
  getFtPositionsJson,
  getNftPositions,
  NftFirstPageLoader,
  type DbFtPosition,
} from '../datastore/principal-positions';
import { getFtBalance } from '../datastore/token-balances';

/** Page sizes of the v3 position lists, as the reference API's (`limit` 1–200, 100 when absent). */
const POSITION_LIMIT = { default: 100, min: 1, max: 200 };

/** `<contract principal>::<asset name>`, as the reference API's v3 asset identifiers. */
const ASSET_IDENTIFIER =
  /^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}\.[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39}::[a-zA-Z]([a-zA-Z0-9]|[-_!?+<>=/*]){0,127}$/;

/** `balance:asset_identifier` (FT) or `value:asset_identifier` (NFT), as a page's cursor gives it. */
const FT_CURSOR = /^([0-9]{1,40}):(.+)$/;
const NFT_CURSOR = /^(0x[0-9a-fA-F]*):(.+)$/;

function cursorOf<T>(query: Record<string, unknown>, re: RegExp, format: string, parse: (m: RegExpExecArray) => T): T | null {
  const raw = queryString(query, 'cursor');
  if (raw === undefined) return null;
  const m = re.exec(raw);
  if (!m) throw new InputError(`query parameter cursor: must be ${format} as a page's cursor gives it, got ${echo(raw)}`);
  return parse(m);
}

/** The v3 cursor block: the page after (its first row), the page before, and this page. */
function cursors<T>(rows: T[], before: T | null, limit: number, encode: (r: T) => string) {
  const results = rows.slice(0, limit);
  return {
    results,
    cursor: {
      next: rows.length > limit ? encode(rows[limit]!) : null,
      previous: before === null ? null : encode(before),
      current: results[0] === undefined ? null : encode(results[0]),
    },
  };
}

/**
 * The v3 successors (not deprecated): `/extended/v3/principals/{principal}/balances/ft` (positive balances, largest
 * first), `/balances/ft/{asset_identifier}`, and `/balances/nft` (the values held now).
 * (`/nonces`: `accountLookupRoutes`.)
 */
export function principalPositionsRoutes(db: Knex): GetRoute[] {
  // The first pages of one turn of the event loop share a statement per list (ADR 0028).
  const ftFirstPages = new FtFirstPageLoader(db);
  const nftFirstPages = new NftFirstPageLoader(db);
  const router = new ReadRoutes();

  router.get('/extended/v3/principals/:principal/balances/ft', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const limit = queryInt(req.query, 'limit', POSITION_LIMIT);
    const cursor = cursorOf(req.query, FT_CURSOR, '<balance>:<asset identifier>', (m) => ({ balance: m[1]!, asset: m[2]! }));
    const page =
      cursor === null ? await ftFirstPages.load(principal, limit) : await getFtPositionsJson(db, principal, limit, cursor);
    const key = (r: DbFtPosition | null) => JSON.stringify(r === null ? null : `${r.balance}:${r.asset_identifier}`);
    // `results` is JSON written by PostgreSQL (`FtFirstPageLoader`, `getFtPositionsJson`), sent as parts (each encoded
    // once, ADR 0047); the rest as `res.json` would write it.
    res
      .type('application/json')
      .send([
        `{"total":${page.total},"limit":${limit},"cursor":{"next":${key(page.next)},"previous":${key(page.before)},` +
          `"current":${key(page.current)}},"results":`,
        page.resultsJson,
        '}',
      ]);
  });

  router.get('/extended/v3/principals/:principal/balances/ft/:asset_identifier', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const asset = req.params.asset_identifier;
    if (!ASSET_IDENTIFIER.test(asset)) {
      throw new InputError(
        `asset_identifier: ${echo(asset)} is not a fungible token identifier (<contract principal>::<asset name>)`,
      );
    }
    res.json({ asset_identifier: asset, balance: await getFtBalance(db, principal, asset) });
  });

  router.get('/extended/v3/principals/:principal/balances/nft', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const limit = queryInt(req.query, 'limit', POSITION_LIMIT);
    const cursor = cursorOf(req.query, NFT_CURSOR, '<value hex>:<asset identifier>', (m) => ({
      value: m[1]!.toLowerCase(),
      asset: m[2]!,
    }));
    const page =
      cursor === null ? await nftFirstPages.load(principal, limit) : await getNftPositions(db, principal, limit, cursor);
    const { results, cursor: c } = cursors(page.rows, page.before, limit, (r) => `${r.value_hex}:${r.asset_identifier}`);
    res.json({
      total: page.total,
      limit,
      cursor: c,
      results: results.map((r) => ({ asset_identifier: r.asset_identifier, value: clarityValueView(r.value_hex) })),
    });
  });

  return router.routes;
}
