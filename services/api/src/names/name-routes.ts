import type { Router } from 'express';
import type { Knex } from 'knex';
import { expressRouter, type GetRoute } from '../plain-routes';
import { namesRoutes } from './routes/names';
import { namespacesRoutes } from './routes/namespaces';
import { pricesRoutes } from './routes/prices';

/**
 * The naming family (BNS, ADR 0022): `/v1/names`, `/v1/namespaces`, `/v1/addresses` and `/v2/prices`, over the read
 * models the indexer keeps from the BNS contract's events and the genesis import. Each answer is one statement.
 * `lookups` (`nameLookupRoutes`: `/v1/names/{name}` and `/v1/addresses/…`) are mounted here too; the api process
 * serves them on plain node:http before express.
 */
export function nameRoutes(db: Knex, lookups: readonly GetRoute[]): GetRoute[] {
  return [...namespacesRoutes(db), ...lookups, ...namesRoutes(db), ...pricesRoutes(db)];
}

/** The same on express. */
export function namesRouter(db: Knex, lookups: readonly GetRoute[]): Router {
  return expressRouter(nameRoutes(db, lookups));
}
