import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError } from '@bda/common';
import { echo, parsePage, parsePrincipal } from '../../params';
import { getFtBalance, TokenBalancePageLoader } from '../datastore/token-balances';
import { markDeprecated } from '../../deprecated';

/** Page sizes of FT balance lists, as the reference API's (`limit` 1–200, 100 when absent). */
const FT_BALANCE_LIMITS = { default: 100, max: 200 };

/** `contract_address.contract_name::asset_name`: a fungible token's identifier. */
const ASSET_IDENTIFIER = /^[A-Z0-9]{28,41}\.[a-zA-Z]([a-zA-Z0-9]|[-_]){0,127}::[a-zA-Z0-9\-_!?+<>=/*]{1,128}$/;

/** `/extended/v2/addresses/{principal}/balances/ft` (a page, asset order) and `/balances/ft/{token}`. */
export function ftBalanceRoutes(db: Knex): GetRoute[] {
  // The pages of one turn of the event loop share a statement (ADR 0028).
  const pages = new TokenBalancePageLoader(db);
  const router = new ReadRoutes();

  router.get('/extended/v2/addresses/:principal/balances/ft', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const { limit, offset } = parsePage(req.query, FT_BALANCE_LIMITS);
    const page = await pages.load(principal, 'ft', { limit, offset });
    markDeprecated(res);
    // `results` is JSON written by PostgreSQL (`TokenBalancePageLoader`), sent as parts: each encoded once into the
    // socket write, the 10 kB text never copied into a joined string (ADR 0028 addendum, ADR 0047).
    res
      .type('application/json')
      .send([`{"limit":${limit},"offset":${offset},"total":${page.total},"results":`, page.resultsJson, '}']);
  });

  router.get('/extended/v2/addresses/:principal/balances/ft/:token', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const token = req.params.token;
    if (!ASSET_IDENTIFIER.test(token)) {
      throw new InputError(`path parameter token: ${echo(token)} is not a fungible token identifier (contract_id::asset_name)`);
    }
    const balance = await getFtBalance(db, principal, token);
    markDeprecated(res);
    res.json({ balance });
  });

  return router.routes;
}
