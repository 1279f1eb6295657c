import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { poxCycleRoutes } from './routes/pox-cycles';
import { poxEventRoutes } from './routes/pox-events';

/**
 * The PoX family (issue 24): the decoded `print` events of the pox-2/3/4 contracts (`/extended/v1/{pox}/…`) and the
 * reward cycles with their signers and stackers (`/extended/v2/pox/…`), read from the read models the indexer keeps in
 * each block's transaction (`services/indexer/src/pox/`), shapes as the reference API's.
 */
export function poxRouter(db: Knex): Router {
  const router = express.Router();
  router.use(poxCycleRoutes(db));
  router.use(poxEventRoutes(db));
  return router;
}
