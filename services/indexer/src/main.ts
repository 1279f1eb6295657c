import express from 'express';
import {
  closeServer,
  createLogger,
  createMetricsRegistry,
  errorMiddleware,
  healthRouter,
  listen,
  notFoundHandler,
  ServiceUnavailableError,
  ShutdownRegistry,
} from '@bda/common';
import { createBus } from '@bda/bus';
import { isDbReachable, migrateLatest } from '@bda/db';
import { loadIndexerEnv } from './env';
import { Indexer } from './indexer';
import { createIndexerDb } from './indexer-db';
import { registerIndexerGauges } from './indexer-gauges';
import { progressRoute } from './progress-route';
import { loadColumnTypes } from './sql';

/** Entry point: migrations, bus consumers, a health/metrics server, ordered shutdown. */
async function main(): Promise<void> {
  const env = loadIndexerEnv();
  const logger = createLogger('indexer', env.LOG_LEVEL);
  const shutdown = new ShutdownRegistry(logger);
  shutdown.installSignalHandlers();
  const metrics = createMetricsRegistry('indexer');
  const db = createIndexerDb(env.DATABASE_URL, logger);
  await migrateLatest(db);
  await loadColumnTypes(db);
  const bus = createBus({
    kafkaBrokers: env.KAFKA_BROKERS,
    databaseUrl: env.BUS_DATABASE_URL ?? env.DATABASE_URL,
    clientId: 'indexer',
    logger,
    kafkaSessionTimeoutMs: env.INDEXER_KAFKA_SESSION_TIMEOUT_MS,
    topicPrefix: env.BUS_TOPIC_PREFIX || undefined,
  });
  const indexer = new Indexer({
    db,
    bus,
    logger,
    metrics,
    groupId: env.INDEXER_GROUP_ID,
    maxBatch: env.INDEXER_MAX_BATCH,
    maxBatchMs: env.INDEXER_MAX_BATCH_MS,
    bitcoinNetwork: env.BITCOIN_NETWORK,
  });
  await indexer.start();
  registerIndexerGauges({ db, metrics, logger, status: () => indexer.status() });
  const app = express();
  app.use(
    healthRouter({
      isReady: async () => indexer.isRunning && (await isDbReachable(db)),
      isShuttingDown: () => shutdown.isShuttingDown,
      metrics,
    }),
  );
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
  app.use(errorMiddleware(logger));
  const { server, port } = await listen(app, env.INDEXER_PORT);
  shutdown.register('intake', 'consumers', () => indexer.stop());
  shutdown.register('clients', 'health server', () => closeServer(server));
  shutdown.register('clients', 'bus', () => bus.close());
  shutdown.register('database', 'db', () => db.destroy());
  logger.info({ port, bus: bus.kind }, 'indexer running');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
