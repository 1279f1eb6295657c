import { Router } from 'express';
import { addressRouter } from './routes/address';
import { blocksRouter } from './routes/blocks';
import type { RouteContext } from './routes/context';
import { statusRouter } from './routes/status';
import { transactionsRouter } from './routes/transactions';
import { v1BlocksRouter } from './routes/v1-blocks';

/**
 * The `/extended` chain family (blocks, transactions, mempool, an address's history): each read one prepared
 * statement over the indexer's read models (ADR 0017), shapes as the reference API's (ADR 0016).
 */
export function chainRouter(ctx: RouteContext): Router {
  const router = Router();
  router.use(statusRouter(ctx), blocksRouter(ctx), v1BlocksRouter(ctx), transactionsRouter(ctx), addressRouter(ctx));
  return router;
}
