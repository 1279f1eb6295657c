import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { contractRoutes } from './routes/contracts';

/** The contracts family: a contract's deploy, its logs, contracts by trait, deploy statuses. */
export function contractsRouter(db: Knex): Router {
  const router = express.Router();
  router.use(contractRoutes(db));
  return router;
}
