import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { errorMiddleware, healthRouter, notFoundHandler, ServiceUnavailableError } from '@bda/common';
import type { Indexer } from './indexer';
import { progressRoute } from './progress-route';

export interface IndexerAppDeps {
  /** What the routes ask: whether it runs, the positions (`/status`), the applied progress (`/progress`). */
  indexer: Pick<Indexer, 'isRunning' | 'status' | 'applierOf' | 'progress'>;
  logger: Logger;
  metrics: Registry;
  /** Ready: the consumers run and the database answers. */
  isReady: () => Promise<boolean> | boolean;
  isShuttingDown: () => boolean;
}

/**
 * The indexer's own HTTP server, not listening yet: `/healthz`, `/readyz`, `/metrics`, `/status` (bus positions and
 * lag per topic) and `/progress` (how far a topic is applied; the observer's pacing asks it, ADR 0015). Everything
 * else is 404 JSON; errors have every service's `{error, message}` body.
 */
export function buildApp(deps: IndexerAppDeps): Express {
  const { indexer } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.use(healthRouter({ isReady: deps.isReady, isShuttingDown: deps.isShuttingDown, metrics: deps.metrics }));
  app.get('/status', async (_req, res) => {
    let topics: Awaited<ReturnType<Indexer['status']>>;
    try {
      topics = await indexer.status();
    } catch (err) {
      throw new ServiceUnavailableError(`cannot read the positions: ${(err as Error).message}`);
    }
    res.json({ running: indexer.isRunning, topics });
  });
  app.get('/progress', progressRoute(indexer));
  // Same error bodies as every other service: unknown routes and failures answer JSON, never express's HTML.
  app.use(notFoundHandler());
  app.use(errorMiddleware(deps.logger));
  return app;
}
