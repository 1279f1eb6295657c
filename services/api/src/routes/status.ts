import express, { type Router } from 'express';
import { getChainTip, getPoxUnlockHeights } from '../datastore/chain-tip';
import { readSnapshot } from '../datastore/snapshot';
import { respondNotModifiedIfFresh } from '../http-cache';
import { toServerStatusResponse } from '../mappers/status';
import type { RouteContext } from './context';

/** `GET /extended` (and its alias `/extended/v1/status`): version and chain tip. */
export function statusRouter(ctx: RouteContext): Router {
  const router = express.Router();
  const handler: express.RequestHandler = async (req, res) => {
    const { tip, unlock } = await readSnapshot(ctx.db, async (trx) => {
      const tip = await getChainTip(trx);
      return { tip, unlock: tip ? await getPoxUnlockHeights(trx, tip.index_block_hash) : null };
    });
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toServerStatusResponse(ctx.serverVersion, tip, unlock));
  };
  router.get('/extended', handler);
  router.get('/extended/v1/status', handler);
  return router;
}
