import type { GetRoute } from '../../plain-routes';
import { ReadRoutes, type ReadHandler } from '../../read-routes';
import { getChainTipWithUnlockHeights } from '../../datastore/chain-tip';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { toServerStatusResponse } from '../mappers/status';
import type { RouteContext } from './context';

/** `GET /extended` (and its alias `/extended/v1/status`): version and chain tip. */
export function statusRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();
  const handler: ReadHandler<string> = async (req, res) => {
    const { tip, unlock } = await getChainTipWithUnlockHeights(ctx.db);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toServerStatusResponse(ctx.serverVersion, tip, unlock));
  };
  router.get('/extended', handler);
  router.get('/extended/v1/status', handler);
  return router.routes;
}
