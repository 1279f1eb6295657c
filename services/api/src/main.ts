/**
 * Entry point of the api: `node --import tsx services/api/src/main.ts`. Serves with API_WORKERS processes
 * (node:cluster; 1 = this process alone), each with its own database pools and ordered shutdown.
 */
import cluster from 'node:cluster';
import {
  AccessWriter,
  closeServer,
  clusterWorkerMetrics,
  listen,
  createLogger,
  createMetricsRegistry,
  runClusterPrimary,
  serveClusterMetrics,
  ShutdownRegistry,
} from '@bda/common';
import { createDb } from '@bda/db';
import { buildRequestListener } from './build-app';
import { liveLimitsFromEnv, loadApiEnv, pageLimitsFromEnv, rosettaOptionsFromEnv } from './env';
import { attachLive } from './live';
import { createRunesDb } from './runes';

const env = loadApiEnv();
const logger = createLogger('api', env.LOG_LEVEL);

/** One serving process (the only one, or a cluster worker): database pools, HTTP server, ordered shutdown. */
async function serve(mode: 'single' | 'worker'): Promise<void> {
  const shutdown = new ShutdownRegistry(logger);
  shutdown.installSignalHandlers();
  const db = createDb({
    connectionString: env.DATABASE_URL,
    maxConnections: env.API_DB_POOL,
    applicationName: 'bda-api',
    statementTimeoutMs: env.API_STATEMENT_TIMEOUT_MS,
    logger,
    // The chain reads are fixed statements written for their generic plan (see `datastore/read-statement.ts`); knex's own
    // queries on this pool are the readiness probe's `SELECT 1` only.
    planCacheMode: 'force_generic_plan',
  });
  const runesDb = createRunesDb({
    connectionString: env.DATABASE_URL,
    max: env.API_DB_POOL,
    applicationName: 'bda-api-runes',
    statementTimeoutMs: env.API_STATEMENT_TIMEOUT_MS,
  });
  const namesDb = createRunesDb({
    connectionString: env.DATABASE_URL,
    max: env.API_DB_POOL,
    applicationName: 'bda-api-names',
    statementTimeoutMs: env.API_STATEMENT_TIMEOUT_MS,
  });
  const metrics = createMetricsRegistry('api');
  // The access lines of each event-loop turn in one write on stdout (ADR 0029); what is left is written at shutdown.
  const accessWriter = new AccessWriter({
    fd: 1,
    onError: (err) => logger.error({ err }, 'access log write failed; its lines are dropped'),
  });
  // Listening does not wait for the database: /readyz stays 503 until it answers.
  const { server, port } = await listen(
    buildRequestListener({
      db,
      runesDb,
      namesDb,
      logger,
      metrics,
      metricsText: mode === 'worker' ? clusterWorkerMetrics(metrics, 'api') : undefined,
      isShuttingDown: () => shutdown.isShuttingDown,
      pageLimits: pageLimitsFromEnv(env),
      schemasDir: env.API_SCHEMAS_DIR,
      rosetta: rosettaOptionsFromEnv(env),
      accessSink: accessWriter,
      shareAnswers: env.API_SHARE_ANSWERS,
    }),
    env.API_PORT,
    env.API_HOST,
  );
  // Live updates on the same server (ADR 0025); closed before it, so that open WebSockets do not hold it open.
  if (env.LIVE_ENABLED) {
    const live = await attachLive({
      server,
      db,
      listenUrl: env.LIVE_LISTEN_DATABASE_URL ?? env.DATABASE_URL,
      logger,
      limits: liveLimitsFromEnv(env),
      metrics,
    });
    shutdown.register('intake', 'live updates', () => live.close());
  }
  shutdown.register('intake', 'http', () => closeServer(server));
  shutdown.register('database', 'db pool', () => db.destroy());
  shutdown.register('database', 'runes db pool', () => runesDb.close());
  shutdown.register('database', 'names db pool', () => namesDb.close());
  shutdown.register('database', 'access log', () => accessWriter.flushSync());
  logger.info({ port, mode }, 'api listening');
}

async function main(): Promise<void> {
  if (!cluster.isPrimary) return serve('worker');
  if (env.API_WORKERS === 1) return serve('single');
  serveClusterMetrics(cluster, 'api');
  runClusterPrimary({ workers: env.API_WORKERS, logger, name: 'api' });
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'api failed to start');
  process.exit(1);
});
