import { closeServer, createLogger, createMetricsRegistry, listen, ShutdownRegistry } from '@bda/common';
import { TOPICS } from '@bda/bus';
import { BitcoindFollower } from './bitcoind-follower';
import { buildApp } from './build-app';
import { loadObserverEnv } from './env';
import { IndexerPacer } from './indexer-pacer';
import { createObserverBus } from './observer-bus';

/** Entry point: config, bus, HTTP server, ordered shutdown. */
async function main(): Promise<void> {
  const env = loadObserverEnv();
  const logger = createLogger('observer', env.LOG_LEVEL);
  const shutdown = new ShutdownRegistry(logger);
  shutdown.installSignalHandlers();
  const bus = createObserverBus(env, logger, 'observer');
  // The topics the intake publishes to (the indexer and the importer ensure the same ones).
  await bus.ensureTopics([TOPICS.stacksNodeEvents, TOPICS.bitcoinBlocks]);
  const producer = bus.producer();
  await producer.connect();
  const metrics = createMetricsRegistry('observer');
  const pacer = env.OBSERVER_INDEXER_URL
    ? new IndexerPacer({
        indexerUrl: env.OBSERVER_INDEXER_URL,
        maxStalenessMs: env.OBSERVER_PACE_STALENESS_MS,
        maxHoldMs: env.OBSERVER_PACE_MAX_HOLD_MS,
        giveUpMs: env.OBSERVER_PACE_GIVE_UP_MS,
        logger,
        metrics,
      })
    : undefined;
  const app = buildApp({
    producer,
    logger,
    metrics,
    bodyLimit: env.OBSERVER_BODY_LIMIT,
    isShuttingDown: () => shutdown.isShuttingDown,
    pacer,
  });
  const { server, port } = await listen(app, env.OBSERVER_PORT, env.OBSERVER_HOST);
  server.requestTimeout = 0; // an 80 MB genesis block may take a while to upload
  shutdown.register('intake', 'http', () => closeServer(server));
  if (env.BITCOIND_RPC_URL) {
    const follower = new BitcoindFollower({
      rpcUrl: env.BITCOIND_RPC_URL,
      user: env.BITCOIND_RPC_USER,
      password: env.BITCOIND_RPC_PASSWORD,
      startHeight: env.BITCOIND_START_HEIGHT,
      pollIntervalMs: env.BITCOIND_POLL_INTERVAL_MS,
      producer,
      topic: TOPICS.bitcoinBlocks,
      lastRecord: () => bus.lastRecord(TOPICS.bitcoinBlocks),
      logger,
      metrics,
    });
    follower.start();
    shutdown.register('intake', 'bitcoind follower', () => follower.stop());
    logger.info({ rpcUrl: env.BITCOIND_RPC_URL, from: env.BITCOIND_START_HEIGHT }, 'following bitcoind');
  }
  if (pacer) shutdown.register('clients', 'indexer pacer', async () => pacer.close());
  shutdown.register('clients', 'bus producer', () => producer.disconnect());
  shutdown.register('database', 'bus', () => bus.close());
  logger.info({ port, bus: bus.kind }, 'observer listening');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
