import express, { type Express } from 'express';
import { errorMiddleware, healthRouter, notFoundHandler } from '@bda/common';
import type { Registry } from 'prom-client';
import { gatewayHandler, type HandlerDeps } from './proxy/gateway-handler';

export interface GatewayDeps extends HandlerDeps {
  registry: Registry;
  isReady: () => boolean;
  isShuttingDown: () => boolean;
  /** Metrics text of the whole host (cluster aggregation); default: this process's registry. */
  metricsText?: () => Promise<string>;
}

/**
 * The gateway's public express app, not listening. Proxied requests are handled entirely by the first middleware;
 * only the gateway's own `/healthz` and `/readyz` reach the routers after it (`/metrics` is proxied, and refused as an
 * internal path: the metrics are on the admin app). The server in start-gateway.ts goes one step further and calls the
 * proxy handler before express for everything else.
 */
export function buildApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(gatewayHandler(deps));
  app.use(healthRouter({ isReady: deps.isReady, isShuttingDown: deps.isShuttingDown, metrics: deps.registry }));
  app.use(notFoundHandler());
  app.use(errorMiddleware(deps.logger));
  return app;
}

/** The admin app (GATEWAY_ADMIN_PORT, loopback by default): `/metrics`, `/healthz`, `/readyz`; it proxies nothing. */
export function buildAdminApp(
  deps: Pick<GatewayDeps, 'registry' | 'isReady' | 'isShuttingDown' | 'metricsText' | 'logger'>,
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
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
