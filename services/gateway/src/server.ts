import { Redis } from 'ioredis';
import pino from 'pino';
import type { Knex } from 'knex';
import {
  closeServer,
  clusterWorkerMetrics,
  createHttpServer,
  createMetricsRegistry,
  ShutdownRegistry,
  type Logger,
} from '@bda/common';
import { buildApp } from './build-app';
import { createDb } from '@bda/db';
import type { GatewayEnv } from './env';
import { KeyStore } from './keys/key-store';
import { createGatewayMetrics } from './metrics';
import { HealthChecker } from './node-pool/health-checker';
import { UpstreamPool } from './node-pool/pool';
import { apiProbe, probeNode } from './node-pool/probes';
import { Forwarder } from './proxy/forward';
import { isOwnPath, proxyRequest, type HandlerDeps } from './proxy/gateway-handler';
import { FallbackLimiter } from './rate-limit/fallback-limiter';
import { IpcLimiter } from './rate-limit/ipc-limiter';
import { MemoryLimiter } from './rate-limit/memory-limiter';
import type { Limiter } from './rate-limit/policy';
import { RedisLimiter } from './rate-limit/redis-limiter';

export interface RunningGateway {
  port: number;
  shutdown: ShutdownRegistry;
}

/**
 * Starts one gateway process (the only one, or a cluster worker): key store, limiter, pools, health checks,
 * the app, and an ordered shutdown. Migrations have already run (index.ts runs them before any worker).
 */
export async function startGateway(env: GatewayEnv, logger: Logger, mode: 'single' | 'worker'): Promise<RunningGateway> {
  // Access lines go through an asynchronous destination: under load, lines that pile up during one write
  // go out together in the next (one syscall for many requests). Each write holds whole lines and at most
  // 4096 bytes, so the lines of several workers on one pipe never interleave.
  const accessDest = pino.destination({ dest: 1, sync: false, maxWrite: 4096 });
  const accessLogger = pino({ name: 'gateway', level: env.LOG_LEVEL }, accessDest);
  const registry = createMetricsRegistry('gateway');
  const metrics = createGatewayMetrics(registry);
  const shutdown = new ShutdownRegistry(logger);
  shutdown.register('database', 'access log', () => accessDest.flushSync());

  const db: Knex = createDb({
    connectionString: env.DATABASE_URL,
    maxConnections: env.DATABASE_POOL_MAX,
    applicationName: 'gateway',
    logger,
  });
  shutdown.register('database', 'postgres', () => db.destroy());
  const keys = new KeyStore(db, { cacheTtlMs: env.KEY_CACHE_TTL_MS, pollMs: env.KEY_REVOCATION_POLL_MS }, logger, metrics);
  await keys.start();
  shutdown.register('work', 'key version poll', () => keys.stop());

  let limiter: Limiter | undefined;
  if (env.RATE_LIMIT_ENABLED) {
    if (env.REDIS_URL) {
      const redis = new Redis(env.REDIS_URL, {
        // Fail fast instead of queueing: the local limiter decides while Redis is away.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: env.REDIS_COMMAND_TIMEOUT_MS,
        enableAutoPipelining: true,
        retryStrategy: (times) => Math.min(100 * times, 2_000),
        lazyConnect: true,
      });
      redis.on('error', () => undefined); // counted and logged by the fallback limiter
      await redis
        .connect()
        .catch((err: Error) => logger.error({ err: { message: err.message } }, 'redis unavailable at startup'));
      limiter = new FallbackLimiter(new RedisLimiter(redis, env.REDIS_KEY_PREFIX), logger, metrics);
      shutdown.register('clients', 'redis', async () => {
        await redis.quit().catch(() => redis.disconnect());
      });
    } else {
      limiter = mode === 'worker' ? new IpcLimiter() : new MemoryLimiter();
    }
    const l = limiter;
    shutdown.register('clients', 'limiter', () => l.close?.());
  }

  const poolOpts = {
    ejectAfter: env.UPSTREAM_EJECT_AFTER,
    ejectBaseMs: env.UPSTREAM_EJECT_BASE_MS,
    ejectMaxMs: env.UPSTREAM_EJECT_MAX_MS,
    maxSockets: env.UPSTREAM_MAX_SOCKETS,
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
  registerPoolGauges(metrics, [nodePool, apiPool]);

  let ready = false;
  const deps: HandlerDeps & Parameters<typeof buildApp>[0] = {
    config: {
      trustProxy: env.trustProxy,
      ipv6Prefix: env.RATE_LIMIT_IPV6_PREFIX,
      policy: {
        anonymousPerMinute: env.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
        keyPerMinute: env.RATE_LIMIT_KEY_PER_MINUTE,
        burstPerSecond: env.RATE_LIMIT_BURST_PER_SECOND,
      },
      nodeRoutes: env.NODE_RPC_ROUTES,
      apiBodyLimit: env.API_BODY_LIMIT_BYTES,
      rosettaLimitedStatus: env.ROSETTA_LIMITED_STATUS,
      rosettaLimitedCode: env.ROSETTA_LIMITED_CODE,
      accessLog: env.ACCESS_LOG,
      cors: env.CORS_ALLOWED_ORIGINS,
    },
    logger,
    accessLogger,
    metrics,
    registry,
    keys,
    limiter,
    nodes: new Forwarder(nodePool, forwardOpts, metrics),
    api: new Forwarder(apiPool, forwardOpts, metrics),
    isReady: () => ready,
    isShuttingDown: () => shutdown.isShuttingDown,
    metricsText: mode === 'worker' ? clusterWorkerMetrics(registry, 'gateway') : undefined,
  };
  const app = buildApp(deps);
  // Proxied requests skip express altogether; the gateway's own endpoints go through the app.
  const proxy = proxyRequest(deps);
  const server = createHttpServer((req, res) => {
    if (isOwnPath(req.url ?? '/')) app(req, res);
    else proxy(req, res);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(env.GATEWAY_PORT, env.HOST, () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : env.GATEWAY_PORT);
    });
  });
  shutdown.register('intake', 'http server', () => closeServer(server));
  shutdown.installSignalHandlers();
  void Promise.all(checkers.map((c) => c.ready())).then(() => {
    ready = true;
    logger.info({ nodes: nodePool.availableCount(), apis: apiPool.availableCount() }, 'gateway ready');
  });
  logger.info(
    { port, mode, redis: Boolean(env.REDIS_URL), nodes: env.NODE_RPC_URLS.length, apis: env.API_URLS.length },
    'gateway listening',
  );
  return { port, shutdown };
}

function registerPoolGauges(metrics: ReturnType<typeof createGatewayMetrics>, pools: UpstreamPool[]): void {
  const update = () => {
    const now = Date.now();
    for (const p of pools) {
      for (const m of p.members) {
        metrics.upstreamAvailable.labels(p.name, m.name).set(m.available(now) ? 1 : 0);
        metrics.upstreamInFlight.labels(p.name, m.name).set(m.inFlight);
      }
    }
  };
  update();
  const timer = setInterval(update, 1_000);
  timer.unref();
}
