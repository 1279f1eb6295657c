import express, { type Router } from 'express';
import { getChainTipWithUnlockHeights } from '../../datastore/chain-tip';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { toServerStatusResponse } from '../mappers/status';
import type { RouteContext } from './context';

/** `GET /extended` (and its alias `/extended/v1/status`): version and chain tip. */
export function statusRouter(ctx: RouteContext): Router {
  const router = express.Router();
  const handler: express.RequestHandler = async (req, res) => {
    const { tip, unlock } = await getChainTipWithUnlockHeights(ctx.db);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toServerStatusResponse(ctx.serverVersion, tip, unlock));
  };
  router.get('/extended', handler);
  router.get('/extended/v1/status', handler);
  return router;
}
