import express, { type Router } from 'express';
import { Registry, collectDefaultMetrics } from 'prom-client';

export interface HealthOptions {
  /** True once the service can do its work (dependencies reachable, caught up enough). */
  isReady: () => boolean | Promise<boolean>;
  isShuttingDown: () => boolean;
  metrics: Registry;
}

/** `/healthz` (process alive), `/readyz` (503 until ready and once shutting down), `/metrics` (Prometheus). */
export function healthRouter(opts: HealthOptions): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (opts.isShuttingDown()) {
      res.status(503).json({ status: 'shutting_down' });
      return;
    }
    let ready = false;
    try {
      ready = await opts.isReady();
    } catch {
      ready = false;
    }
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready' });
  });
  router.get('/metrics', async (_req, res) => {
    res.set('content-type', opts.metrics.contentType).send(await opts.metrics.metrics());
  });
  return router;
}

/** A fresh metrics registry with the default process metrics, labelled with the service name. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
