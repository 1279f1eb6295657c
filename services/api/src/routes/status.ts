import express, { type Router } from 'express';
import { getChainTip, getPoxUnlockHeights } from '../datastore/chain-tip';
import { respondNotModifiedIfFresh } from '../http-cache';
import { toServerStatusResponse } from '../mappers/status';
import type { RouteContext } from './context';

/** `GET /extended` (and its alias `/extended/v1/status`): version and chain tip. */
export function statusRouter(ctx: RouteContext): Router {
  const router = express.Router();
  const handler: express.RequestHandler = async (req, res) => {
    const tip = await getChainTip(ctx.db);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    // Read only for a full answer; a block's unlock heights never change, so no snapshot is needed with the tip.
    const unlock = tip ? await getPoxUnlockHeights(ctx.db, tip.index_block_hash) : null;
    res.json(toServerStatusResponse(ctx.serverVersion, tip, unlock));
  };
  router.get('/extended', handler);
  router.get('/extended/v1/status', handler);
  return router;
}
