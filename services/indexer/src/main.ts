import { randomUUID } from 'node:crypto';
import { FenceWriter } from '@bda/answer-fence';
import { closeServer, createLogger, createMetricsRegistry, listen, ShutdownRegistry } from '@bda/common';
import { createBus } from '@bda/bus';
import { isDbReachable } from '@bda/db';
import { buildApp } from './build-app';
import { meteredFence, migrateFenced } from './data-epoch';
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
  // Started before the migrations and before consuming: both are fenced (ADR 0048).
  const fenceWriter = env.REDIS_URL
    ? new FenceWriter({
        url: env.REDIS_URL,
        prefix: env.ANSWER_FENCE_PREFIX,
        heartbeatMs: env.INDEXER_FENCE_HEARTBEAT_MS,
        logger,
        id: `${env.INDEXER_GROUP_ID}-${randomUUID().slice(0, 8)}`,
      })
    : undefined;
  await fenceWriter?.start();
  const fence = fenceWriter && meteredFence(fenceWriter, metrics);
  await migrateFenced(db, fence);
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
    fence,
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
  // After the consumers (no transaction fences any more), before the database.
  if (fenceWriter) shutdown.register('clients', 'answer fence', () => fenceWriter.stop());
  shutdown.register('database', 'db', () => db.destroy());
  logger.info({ host: env.INDEXER_HOST, port, bus: bus.kind, fence: fenceWriter?.id ?? null }, 'indexer running');
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'indexer failed to start');
  process.exit(1);
});
