import { Router } from 'express';
import { expressRouter, type GetRoute } from '../plain-routes';
import { addressRoutes } from './routes/address';
import { blockExtrasRoutes } from './routes/block-extras';
import { blocksRoutes } from './routes/blocks';
import { blockTenuresRoutes } from './routes/block-tenures';
import { burnchainRoutes } from './routes/burnchain';
import { feeRateRouter } from './routes/fee-rate';
import { mempoolFeesRoutes } from './routes/mempool-fees';
import { microblocksRoutes } from './routes/microblocks';
import { networkBlockTimesRoutes } from './routes/network-block-times';
import type { RouteContext } from './routes/context';
import { statusRoutes } from './routes/status';
import { transactionsRoutes } from './routes/transactions';
import { v1BlocksRoutes } from './routes/v1-blocks';
import { v2BurnBlocksRoutes } from './routes/v2-burn-blocks';
import { v1TransactionsRoutes } from './routes/v1-transactions';

/**
 * The `/extended` chain family's GET endpoints (blocks, transactions, the mempool, an address's history, burnchain
 * rewards), in matching order: each read one prepared statement over the indexer's read models (ADR 0017), shapes as
 * the reference API's (ADR 0016). Served on plain node:http (`read-routes.ts`, ADR 0030).
 */
export function chainRoutes(ctx: RouteContext): GetRoute[] {
  return [
    ...statusRoutes(ctx),
    // Before blocksRoutes: its `/extended/v2/blocks/:height_or_hash` would take `average-times`.
    ...v2BurnBlocksRoutes(ctx),
    ...blocksRoutes(ctx),
    ...blockExtrasRoutes(ctx),
    ...blockTenuresRoutes(ctx),
    ...microblocksRoutes(ctx),
    ...networkBlockTimesRoutes(),
    ...mempoolFeesRoutes(ctx),
    ...v1BlocksRoutes(ctx),
    ...v1TransactionsRoutes(ctx),
    ...transactionsRoutes(ctx),
    ...addressRoutes(ctx),
    ...burnchainRoutes(ctx),
  ];
}

/** The chain family on express: its GET endpoints (`chainRoutes`) and the fee estimate (`POST /extended/v1/fee_rate`). */
export function chainRouter(ctx: RouteContext, routes: GetRoute[] = chainRoutes(ctx)): Router {
  const router = Router();
  router.use(expressRouter(routes), feeRateRouter());
  return router;
}
