import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { balancesRoutes } from './routes/balances';
import { ftBalanceRoutes } from './routes/ft-balances';
import { noncesRoutes } from './routes/nonces';
import { stxBalanceRoutes } from './routes/stx-balance';

/**
 * The accounts family (ADR 0024): an address's STX and token balances, at the tip or at a height, and its nonces; read from the
 * balance read models the indexer keeps in each block's transaction (one index read a balance, no sum over events).
 */
export function accountsRouter(db: Knex): Router {
  const router = express.Router();
  router.use(stxBalanceRoutes(db));
  router.use(balancesRoutes(db));
  router.use(ftBalanceRoutes(db));
  router.use(noncesRoutes(db));
  return router;
}
