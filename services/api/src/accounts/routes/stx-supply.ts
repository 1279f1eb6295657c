import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { MAX_BLOCK_HEIGHT, queryBoolean, queryInt, queryString } from '../../params';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { getStxSupply } from '../datastore/v3-transactions';
import { microStxToStx, toStxSupplyLegacyResponse, toStxSupplyResponse, toStxSupplyV3Response } from '../mappers/stx-supply';
import { markDeprecated } from '../../deprecated';

/**
 * The STX supply from the indexer's running totals (migration 071, one index read): `/extended/v1/stx_supply`
 * (at `height` or the tip), `/total/plain`, `/circulating/plain`, `/legacy_format` (all deprecated by the reference
 * API, `Warning: 299`), and their successor `/extended/v3/tokens/stx/supply` (micro-STX).
 */
export function stxSupplyRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();

  /** `height` (from 0; the tip without it) and `unanchored` (checked, and the tip: no microblock state is kept). */
  function heightOf(query: Record<string, unknown>): number | null {
    queryBoolean(query, 'unanchored');
    return queryString(query, 'height') === undefined
      ? null
      : queryInt(query, 'height', { default: 0, min: 0, max: MAX_BLOCK_HEIGHT });
  }

  router.get('/extended/v1/stx_supply', async (req, res) => {
    const height = heightOf(req.query);
    const { tip, supply } = await getStxSupply(db, height);
    markDeprecated(res);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toStxSupplyResponse(supply, height ?? tip?.block_height ?? 0));
  });

  router.get('/extended/v1/stx_supply/legacy_format', async (req, res) => {
    const height = heightOf(req.query);
    const { tip, supply } = await getStxSupply(db, height);
    markDeprecated(res);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toStxSupplyLegacyResponse(supply, height ?? tip?.block_height ?? 0));
  });

  // The plain forms answer the tip's figure as text (both are the liquid supply: see `toStxSupplyResponse`).
  for (const path of ['/extended/v1/stx_supply/total/plain', '/extended/v1/stx_supply/circulating/plain']) {
    router.get(path, async (req, res) => {
      const { tip, supply } = await getStxSupply(db, null);
      markDeprecated(res);
      if (respondNotModifiedIfFresh(req, res, tip)) return;
      res.type('text/plain').send(microStxToStx(supply));
    });
  }

  router.get('/extended/v3/tokens/stx/supply', async (req, res) => {
    const { tip, supply } = await getStxSupply(db, null);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toStxSupplyV3Response(supply));
  });

  return router.routes;
}
