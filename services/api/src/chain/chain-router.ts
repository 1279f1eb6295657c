import { Router } from 'express';
import { addressRouter } from './routes/address';
import { blockExtrasRouter } from './routes/block-extras';
import { blocksRouter } from './routes/blocks';
import { blockTenuresRouter } from './routes/block-tenures';
import { burnchainRouter } from './routes/burnchain';
import { feeRateRouter } from './routes/fee-rate';
import { mempoolFeesRouter } from './routes/mempool-fees';
import { microblocksRouter } from './routes/microblocks';
import { networkBlockTimesRouter } from './routes/network-block-times';
import type { RouteContext } from './routes/context';
import { statusRouter } from './routes/status';
import { transactionsRouter } from './routes/transactions';
import { v1BlocksRouter } from './routes/v1-blocks';
import { v2BurnBlocksRouter } from './routes/v2-burn-blocks';
import { v1TransactionsRouter } from './routes/v1-transactions';

/**
 * The `/extended` chain family (blocks, transactions, mempool, an address's history, burnchain rewards): each read one prepared
 * statement over the indexer's read models (ADR 0017), shapes as the reference API's (ADR 0016).
 */
export function chainRouter(ctx: RouteContext): Router {
  const router = Router();
  router.use(
    statusRouter(ctx),
    // Before blocksRouter: its `/extended/v2/blocks/:height_or_hash` would take `average-times`.
    v2BurnBlocksRouter(ctx),
    blocksRouter(ctx),
    blockExtrasRouter(ctx),
    blockTenuresRouter(ctx),
    microblocksRouter(ctx),
    networkBlockTimesRouter(),
    mempoolFeesRouter(ctx),
    v1BlocksRouter(ctx),
    v1TransactionsRouter(ctx),
    transactionsRouter(ctx),
    addressRouter(ctx),
    burnchainRouter(ctx),
    feeRateRouter(),
  );
  return router;
}
