import { closeServer, createLogger, createMetricsRegistry, listen, ShutdownRegistry } from '@bda/common';
import { TOPICS } from '@bda/bus';
import { BitcoindFollower } from './bitcoind-follower';
import { buildApp } from './build-app';
import { parseByteSize } from './event-intake';
import { loadObserverEnv } from './env';
import { IndexerPacer } from './indexer-pacer';
import { createObserverBus } from './observer-bus';
import { allowedPeersFor } from './peer-allow-list';

const env = loadObserverEnv();
const logger = createLogger('observer', env.LOG_LEVEL);

/** Entry point: config, bus, HTTP server, ordered shutdown. */
async function main(): Promise<void> {
  const allowedPeers = allowedPeersFor(env.OBSERVER_ALLOWED_CIDRS, env.OBSERVER_HOST);
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
    allowedPeers,
    // Slow bodies are cut off by their rate, not their total time: a genesis block over a slow link still passes.
    bodyPace: { graceMs: env.OBSERVER_BODY_GRACE_MS, minBytesPerSecond: parseByteSize(env.OBSERVER_BODY_MIN_RATE) },
    inflateMaxRatio: env.OBSERVER_INFLATE_MAX_RATIO,
  });
  const { server, port } = await listen(app, env.OBSERVER_PORT, env.OBSERVER_HOST);
  server.requestTimeout = env.OBSERVER_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(env.OBSERVER_HEADERS_TIMEOUT_MS, env.OBSERVER_REQUEST_TIMEOUT_MS);
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
  logger.info({ host: env.OBSERVER_HOST, port, allowedPeers: allowedPeers.text, bus: bus.kind }, 'observer listening');
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'observer failed to start');
  process.exit(1);
});
