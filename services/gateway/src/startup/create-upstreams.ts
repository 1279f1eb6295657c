import type { Logger, ShutdownRegistry } from '@bda/common';
import type { GatewayEnv } from '../env';
import type { GatewayMetrics } from '../metrics';
import { HealthChecker } from '../node-pool/health-checker';
import { UpstreamPool } from '../node-pool/pool';
import { apiProbe, probeNode } from '../node-pool/probes';
import { Forwarder } from '../proxy/forward';

export interface Upstreams {
  nodes: Forwarder;
  api: Forwarder;
  nodePool: UpstreamPool;
  apiPool: UpstreamPool;
  /** Resolves once every pool's first round of health checks is done. */
  ready: () => Promise<void>;
}

/** The node pool and the api pool, their forwarders and active health checks, their gauges (set at each scrape). */
export function createUpstreams(env: GatewayEnv, logger: Logger, metrics: GatewayMetrics, shutdown: ShutdownRegistry): Upstreams {
  const poolOpts = {
    ejectAfter: env.UPSTREAM_EJECT_AFTER,
    ejectBaseMs: env.UPSTREAM_EJECT_BASE_MS,
    ejectMaxMs: env.UPSTREAM_EJECT_MAX_MS,
    maxSockets: env.UPSTREAM_MAX_SOCKETS,
    panicThresholdPercent: env.UPSTREAM_PANIC_THRESHOLD_PERCENT,
  };
  const forwardOpts = {
    tryTimeoutMs: env.UPSTREAM_TRY_TIMEOUT_MS,
    totalTimeoutMs: env.UPSTREAM_TOTAL_TIMEOUT_MS,
    maxTries: env.UPSTREAM_MAX_TRIES,
  };
  const nodePool = new UpstreamPool('node', env.NODE_RPC_URLS, poolOpts, logger, metrics);
  const apiPool = new UpstreamPool('api', env.API_URLS, poolOpts, logger, metrics);
  shutdown.register('clients', 'upstream agents', () => {
    nodePool.destroy();
    apiPool.destroy();
  });
  const healthOpts = {
    intervalMs: env.NODE_HEALTH_INTERVAL_MS,
    timeoutMs: env.NODE_HEALTH_TIMEOUT_MS,
    unhealthyThreshold: env.NODE_UNHEALTHY_THRESHOLD,
    healthyThreshold: env.NODE_HEALTHY_THRESHOLD,
  };
  const checkers = [
    new HealthChecker(nodePool, probeNode, { ...healthOpts, maxLagBlocks: env.NODE_MAX_LAG_BLOCKS }, logger, metrics),
  ];
  if (env.API_HEALTH_PATH) checkers.push(new HealthChecker(apiPool, apiProbe(env.API_HEALTH_PATH), healthOpts, logger, metrics));
  for (const c of checkers) c.start();
  shutdown.register('work', 'health checks', () => checkers.forEach((c) => c.stop()));
  metrics.beforeScrape.push(() => {
    const now = Date.now();
    for (const p of [nodePool, apiPool]) {
      for (const m of p.members) {
        metrics.upstreamAvailable.labels(p.name, m.name).set(m.available(now) ? 1 : 0);
        metrics.upstreamInFlight.labels(p.name, m.name).set(m.inFlight);
      }
    }
  });
  return {
    nodes: new Forwarder(nodePool, forwardOpts, metrics),
    api: new Forwarder(apiPool, forwardOpts, metrics),
    nodePool,
    apiPool,
    ready: async () => {
      await Promise.all(checkers.map((c) => c.ready()));
    },
  };
}
