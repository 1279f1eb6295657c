import express, { type Express } from 'express';
import { errorMiddleware, healthRouter, notFoundHandler } from '@bda/common';
import type { Registry } from 'prom-client';
import { gatewayHandler, type HandlerDeps } from './proxy/gateway-handler';

export interface AppDeps extends HandlerDeps {
  registry: Registry;
  isReady: () => boolean;
  isShuttingDown: () => boolean;
  /** Metrics text of the whole host (cluster aggregation); default: this process's registry. */
  metricsText?: () => Promise<string>;
}

/**
 * The gateway's express app, not listening. Proxied requests are handled entirely by the first middleware;
 * only the gateway's own `/healthz`, `/readyz` and `/metrics` reach the routers after it. (The server in
 * server.ts goes one step further and calls the proxy handler before express for everything else.)
 */
export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(gatewayHandler(deps));
  const metricsText = deps.metricsText;
  if (metricsText) {
    app.get('/metrics', async (_req, res) => {
      res.set('content-type', deps.registry.contentType).send(await metricsText());
    });
  }
  app.use(healthRouter({ isReady: deps.isReady, isShuttingDown: deps.isShuttingDown, metrics: deps.registry }));
  app.use(notFoundHandler());
  app.use(errorMiddleware(deps.logger));
  return app;
}
