import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { searchRoutes } from './routes/search';

/** The search family: `/extended/v1/search/{id}` over blocks, transactions, the mempool, contracts and addresses. */
export function searchRouter(db: Knex): Router {
  const router = express.Router();
  router.use(searchRoutes(db));
  return router;
}
