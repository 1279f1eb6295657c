import type { Logger } from 'pino';
import type { Bus } from './bus';
import { KafkaBus } from './kafka-bus';
import { PgLogBus } from './pg-log-bus';

export interface CreateBusOptions {
  /** Kafka bootstrap brokers; when empty the PostgreSQL log is used. */
  kafkaBrokers: string[];
  /** Database of the embedded log (used when no brokers are given). */
  databaseUrl: string;
  clientId: string;
  logger: Logger;
  /** Prefix for topic names (tests isolate themselves with it). */
  topicPrefix?: string;
  /** Kafka consumer-group session timeout: how long a crashed consumer holds its partition (ms). */
  kafkaSessionTimeoutMs?: number;
  /** Kafka produce batches from this size (bytes) on are gzip-compressed; see `KafkaBusOptions.compressMinBytes`. */
  kafkaCompressMinBytes?: number;
}

/** Kafka when brokers are configured, else the embedded PostgreSQL log. */
export function createBus(opts: CreateBusOptions): Bus {
  if (opts.kafkaBrokers.length > 0) {
    return new KafkaBus({
      brokers: opts.kafkaBrokers,
      clientId: opts.clientId,
      logger: opts.logger,
      topicPrefix: opts.topicPrefix,
      sessionTimeoutMs: opts.kafkaSessionTimeoutMs,
      compressMinBytes: opts.kafkaCompressMinBytes,
      heartbeatIntervalMs: opts.kafkaSessionTimeoutMs ? Math.max(500, Math.floor(opts.kafkaSessionTimeoutMs / 6)) : undefined,
    });
  }
  return new PgLogBus({
    connectionString: opts.databaseUrl,
    logger: opts.logger,
    schema: opts.topicPrefix ? `bus_${opts.topicPrefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}` : 'bus',
  });
}
