import { closeServer, createLogger, createMetricsRegistry, listen, ShutdownRegistry } from '@bda/common';
import { createDb } from '@bda/db';
import { buildApp } from './build-app';
import { loadApiEnv, pageLimitsFromEnv } from './env';

/** Entry point: config, database pool (read-only use), HTTP server, ordered shutdown. */
async function main(): Promise<void> {
  const env = loadApiEnv();
  const logger = createLogger('api', env.LOG_LEVEL);
  const shutdown = new ShutdownRegistry(logger);
  shutdown.installSignalHandlers();
  const db = createDb({
    connectionString: env.DATABASE_URL,
    maxConnections: env.API_DB_POOL,
    applicationName: 'bda-api',
    statementTimeoutMs: env.API_STATEMENT_TIMEOUT_MS,
  });
  const app = buildApp({
    db,
    logger,
    metrics: createMetricsRegistry('api'),
    isShuttingDown: () => shutdown.isShuttingDown,
    pageLimits: pageLimitsFromEnv(env),
    schemasDir: env.API_SCHEMAS_DIR,
  });
  // Listening does not wait for the database: /readyz stays 503 until it answers.
  const { server, port } = await listen(app, env.API_PORT, env.API_HOST);
  shutdown.register('intake', 'http', () => closeServer(server));
  shutdown.register('database', 'db pool', () => db.destroy());
  logger.info({ port }, 'api listening');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
