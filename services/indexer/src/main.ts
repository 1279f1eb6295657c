import { closeServer, createLogger, createMetricsRegistry, listen, ShutdownRegistry } from '@bda/common';
import { createBus } from '@bda/bus';
import { isDbReachable, migrateLatest } from '@bda/db';
import { buildApp } from './build-app';
import { loadIndexerEnv } from './env';
import { Indexer } from './indexer';
import { createIndexerDb } from './indexer-db';
import { registerIndexerGauges } from './indexer-gauges';
import { loadColumnTypes } from './write-statements';

const env = loadIndexerEnv();
const logger = createLogger('indexer', env.LOG_LEVEL);

/** Entry point: migrations, bus consumers, a health/metrics server, ordered shutdown. */
async function main(): Promise<void> {
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
    parking: { maxBlocks: env.INDEXER_PARKED_MAX_BLOCKS, maxBytes: env.INDEXER_PARKED_MAX_BYTES },
  });
  await indexer.start();
  registerIndexerGauges({ db, metrics, logger, status: () => indexer.status() });
  const app = buildApp({
    indexer,
    logger,
    metrics,
    isReady: async () => indexer.isRunning && (await isDbReachable(db)),
    isShuttingDown: () => shutdown.isShuttingDown,
  });
  const { server, port } = await listen(app, env.INDEXER_PORT, env.INDEXER_HOST);
  // GETs only: a request (with any body) must arrive within these.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  shutdown.register('intake', 'consumers', () => indexer.stop());
  shutdown.register('clients', 'health server', () => closeServer(server));
  shutdown.register('clients', 'bus', () => bus.close());
  shutdown.register('database', 'db', () => db.destroy());
  logger.info({ host: env.INDEXER_HOST, port, bus: bus.kind }, 'indexer running');
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'indexer failed to start');
  process.exit(1);
});
