import express, { type ErrorRequestHandler, type Router } from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { RosettaError, toRosettaErrorResponse } from './mappers/rosetta-errors';
import { rosettaAccountRoutes } from './routes/rosetta-account-routes';
import { rosettaBlockRoutes } from './routes/rosetta-block-routes';
import { rosettaConstructionRoutes } from './routes/rosetta-construction-routes';
import { createRosettaContext, type RosettaOptions } from './routes/rosetta-context';
import type { RosettaRoutes } from './routes/rosetta-handler';
import { rosettaNetworkRoutes } from './routes/rosetta-network-routes';
import { bodyOf } from './routes/rosetta-request';

/** Largest request body (a signed transaction with its operations is a few KB). */
const BODY_LIMIT = '512kb';

/**
 * `/rosetta/…`: the Mesh (Rosetta) Data and Construction APIs under `/rosetta/v1`. Every endpoint is a POST of a JSON
 * object. Every failure — a malformed or oversized body, an unknown path or method, a catalogued domain error, a
 * database failure — is answered here, HTTP 500 with a Rosetta `Error`: the Mesh client gives up on any 4xx.
 */
export function rosettaRouter(deps: { db: Knex; logger: Logger; options: RosettaOptions }): Router {
  const ctx = createRosettaContext(deps.db, deps.logger, deps.options);
  const routes: RosettaRoutes = {
    ...rosettaNetworkRoutes(ctx),
    ...rosettaBlockRoutes(ctx),
    ...rosettaAccountRoutes(ctx),
    ...rosettaConstructionRoutes(ctx),
  };

  const router = express.Router();
  // Any content type: a client that omits `application/json` still means JSON. Objects and arrays only (`strict`).
  router.use(express.json({ type: () => true, limit: BODY_LIMIT, strict: true }));
  for (const [path, handler] of Object.entries(routes)) {
    router.post(`/v1${path}`, async (req, res) => {
      res.json(await handler(bodyOf(req.body)));
    });
  }
  router.use((req) => {
    throw new RosettaError('unknownEndpoint', { method: req.method, path: req.originalUrl.split('?')[0] });
  });
  const onError: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    let error: RosettaError;
    if (err instanceof RosettaError) {
      error = err;
    } else if (isBodyParserError(err)) {
      error = new RosettaError('malformedRequest', { reason: err.type });
    } else {
      deps.logger.error({ err, path: req.originalUrl }, 'rosetta request failed');
      error = new RosettaError('internal');
    }
    res.status(500).json(toRosettaErrorResponse(error));
  };
  router.use(onError);
  return router;
}

/** body-parser's own errors (bad JSON, too large, bad charset or encoding, aborted): they carry a string `type`. */
function isBodyParserError(err: unknown): err is { type: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { type?: unknown }).type === 'string' &&
    typeof (err as { status?: unknown }).status === 'number'
  );
}
