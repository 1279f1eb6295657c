import pino from 'pino';
import {
  AccessWriter,
  clusterWorkerMetrics,
  createMetricsRegistry,
  ShutdownRegistry,
  type AccessSink,
  type Logger,
} from '@bda/common';
import { createDb } from '@bda/db';
import { FenceHolder } from '@bda/answer-fence';
import { buildAdminApp, buildApp, type GatewayDeps } from './build-app';
import type { GatewayEnv } from './env';
import { KeyStore } from './keys/key-store';
import { createGatewayMetrics } from './metrics';
import { attachFastPath } from './proxy/fast-path';
import { isOwnPath, proxyRequest } from './proxy/gateway-handler';
import { AnswerCache } from './proxy/answer-cache';
import { SameTurnForwards, type KeptAnswers } from './proxy/same-turn-forwards';
import { InvalidKeyBudget } from './rate-limit/invalid-key-budget';
import { createLimiter } from './startup/create-limiter';
import { createUpstreams } from './startup/create-upstreams';
import { serve } from './startup/serve';
import { attachWebSocketProxy } from './websocket/websocket-proxy';

export interface RunningGateway {
  port: number;
  adminPort: number;
  shutdown: ShutdownRegistry;
}

/**
 * Starts one gateway process (the only one, or a cluster worker): key store, limiter, upstreams with their health
 * checks, the public listener and the admin listener, and an ordered shutdown. Migrations have already run (main.ts
 * runs them before any worker).
 */
export async function startGateway(env: GatewayEnv, logger: Logger, mode: 'single' | 'worker'): Promise<RunningGateway> {
  const registry = createMetricsRegistry('gateway');
  const metrics = createGatewayMetrics(registry);
  const shutdown = new ShutdownRegistry(logger);
  const { accessLogger, accessSink } = createAccessLogger(env, logger, shutdown);
  const keys = await startKeyStore(env, logger, metrics, shutdown);
  const limiter = await createLimiter(env, mode, logger, metrics, shutdown);
  const upstreams = createUpstreams(env, logger, metrics, shutdown);
  const kept = startAnswerCache(env, logger, metrics, shutdown);

  let ready = false;
  const deps: GatewayDeps = {
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
      bodyTimeoutMs: env.GATEWAY_BODY_TIMEOUT_MS,
      rosettaLimitedStatus: env.ROSETTA_LIMITED_STATUS,
      rosettaLimitedCode: env.ROSETTA_LIMITED_CODE,
      accessLog: env.ACCESS_LOG,
      cors: env.CORS_ALLOWED_ORIGINS,
    },
    logger,
    accessLogger,
    accessSink,
    metrics,
    registry,
    keys,
    invalidKeys: new InvalidKeyBudget(env.KEY_LOOKUP_FAILURES_PER_MINUTE),
    limiter,
    nodes: upstreams.nodes,
    api: upstreams.api,
    sameTurn:
      env.GATEWAY_SHARE_ANSWERS || kept
        ? new SameTurnForwards({
            share: env.GATEWAY_SHARE_ANSWERS,
            maxBytes: env.GATEWAY_SHARE_MAX_BYTES,
            onShared: (n) => metrics.sharedAnswers.inc(n),
            kept,
          })
        : undefined,
    isReady: () => ready,
    isShuttingDown: () => shutdown.isShuttingDown,
    metricsText: mode === 'worker' ? clusterWorkerMetrics(registry, 'gateway') : undefined,
  };

  // Proxied requests skip express altogether; the gateway's own endpoints go through the app.
  const app = buildApp(deps);
  const proxy = proxyRequest(deps);
  const timeouts = { headersTimeoutMs: env.GATEWAY_HEADERS_TIMEOUT_MS, bodyTimeoutMs: env.GATEWAY_BODY_TIMEOUT_MS };
  const publicSide = await serve(
    (req, res) => (isOwnPath(req.url ?? '/') ? app(req, res) : proxy(req, res)),
    env.GATEWAY_PORT,
    env.HOST,
    timeouts,
    shutdown,
    'http server',
  );
  if (env.GATEWAY_FAST_PATH) {
    const fastPath = attachFastPath(publicSide.server, proxy, {
      serves: (url) => !isOwnPath(url),
      headersTimeoutMs: env.GATEWAY_HEADERS_TIMEOUT_MS,
    });
    shutdown.register('intake', 'fast path connections', () => fastPath.closeIdle());
  }
  // Live updates (ADR 0025): WebSocket upgrades to the api's /socket.io/ and /extended/v1/ws, keyed and counted.
  const websockets = attachWebSocketProxy(publicSide.server, {
    ...deps,
    apiPool: upstreams.apiPool,
    policy: {
      maxPerKey: env.GATEWAY_WS_MAX_CONNECTIONS_PER_KEY,
      maxPerAddress: env.GATEWAY_WS_MAX_CONNECTIONS_PER_ADDRESS,
      recheckMs: env.GATEWAY_WS_KEY_RECHECK_MS,
      upgradeTimeoutMs: env.GATEWAY_WS_UPGRADE_TIMEOUT_MS,
    },
  });
  shutdown.register('intake', 'websocket connections', () => websockets.close());
  const admin = await serve(
    buildAdminApp(deps),
    env.GATEWAY_ADMIN_PORT,
    env.GATEWAY_ADMIN_HOST,
    timeouts,
    shutdown,
    'admin server',
  );
  shutdown.installSignalHandlers();
  void upstreams.ready().then(() => {
    ready = true;
    logger.info({ nodes: upstreams.nodePool.availableCount(), apis: upstreams.apiPool.availableCount() }, 'gateway ready');
  });
  logger.info({ host: env.GATEWAY_ADMIN_HOST, port: admin.port }, 'gateway admin listening');
  logger.info(
    {
      port: publicSide.port,
      mode,
      redis: Boolean(env.REDIS_URL),
      answerCache: kept !== undefined,
      nodes: env.NODE_RPC_URLS.length,
      apis: env.API_URLS.length,
    },
    'gateway listening',
  );
  return { port: publicSide.port, adminPort: admin.port, shutdown };
}

/**
 * The access log: one writer (access-writer.ts) on stdout for the hand-built lines of proxied requests and for the
 * access logger's other lines, which writes the lines of each event-loop turn together right after it, in writes of
 * whole lines of at most 4096 bytes (the lines of several workers on one pipe never interleave). Pino's asynchronous
 * destination cost a thread-pool round trip per line when the gateway was not saturated (issue 26, ADR 0029).
 */
function createAccessLogger(
  env: GatewayEnv,
  logger: Logger,
  shutdown: ShutdownRegistry,
): { accessLogger: Logger; accessSink?: AccessSink } {
  const writer = new AccessWriter({
    fd: 1,
    maxWrite: 4096,
    onError: (err) => logger.error({ err }, 'access log write failed; its lines are dropped'),
  });
  shutdown.register('database', 'access log', () => writer.flushSync());
  const accessLogger = pino({ name: 'gateway', level: env.LOG_LEVEL }, writer);
  // The proxied requests' lines are built by hand (access-line.ts) and written straight to the writer, as pino would
  // write them, whenever pino would write them at all (level info or lower).
  return { accessLogger, accessSink: accessLogger.isLevelEnabled('info') ? writer : undefined };
}

/**
 * The answers kept in memory (ADR 0048), when Redis is there for the answer fence and GATEWAY_ANSWER_CACHE_BYTES > 0:
 * this process's fence holder (its own two Redis connections), started now and stopped (its lease given back) once the
 * servers are drained, before the other Redis clients close. A fence empties the cache: every answer kept until then
 * is older than what may be served.
 */
function startAnswerCache(
  env: GatewayEnv,
  logger: Logger,
  metrics: ReturnType<typeof createGatewayMetrics>,
  shutdown: ShutdownRegistry,
): KeptAnswers | undefined {
  if (!env.REDIS_URL || env.GATEWAY_ANSWER_CACHE_BYTES === 0) return undefined;
  const cache = new AnswerCache(env.GATEWAY_ANSWER_CACHE_BYTES, (bytes) => metrics.answerCacheBytes.set(bytes));
  const holder = new FenceHolder({
    url: env.REDIS_URL,
    prefix: env.ANSWER_FENCE_PREFIX,
    leaseMs: env.GATEWAY_ANSWER_CACHE_LEASE_MS,
    onFence: () => cache.clear(),
    logger,
  });
  holder.start();
  metrics.beforeScrape.push(() => metrics.answerFenceEpoch.set(holder.servingEpoch() ?? 0));
  shutdown.register('work', 'answer fence', () => holder.stop());
  return {
    cache,
    servingEpoch: () => holder.servingEpoch(),
    maxAgeMs: env.GATEWAY_ANSWER_CACHE_MAX_AGE_MS,
    entryMaxBytes: env.GATEWAY_ANSWER_CACHE_ENTRY_MAX_BYTES,
    onResult: (result) => metrics.answerCache.inc(result),
  };
}

/** The key store on its own small PostgreSQL pool, polling the key version for revocations. */
async function startKeyStore(
  env: GatewayEnv,
  logger: Logger,
  metrics: ReturnType<typeof createGatewayMetrics>,
  shutdown: ShutdownRegistry,
): Promise<KeyStore> {
  const db = createDb({
    connectionString: env.DATABASE_URL,
    maxConnections: env.DATABASE_POOL_MAX,
    applicationName: 'gateway',
    logger,
  });
  shutdown.register('database', 'postgres', () => db.destroy());
  const keys = new KeyStore(db, { cacheTtlMs: env.KEY_CACHE_TTL_MS, pollMs: env.KEY_REVOCATION_POLL_MS }, logger, metrics);
  await keys.start();
  shutdown.register('work', 'key version poll', () => keys.stop());
  return keys;
}
