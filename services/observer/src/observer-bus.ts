import type { Logger } from 'pino';
import { createBus, type Bus } from '@bda/bus';
import type { ObserverEnv } from './env';

/** The bus the observer's settings name (Kafka, else the PostgreSQL log), for the observer and the importer alike. */
export function createObserverBus(env: ObserverEnv, logger: Logger, clientId: string): Bus {
  return createBus({
    kafkaBrokers: env.KAFKA_BROKERS,
    databaseUrl: env.BUS_DATABASE_URL ?? env.DATABASE_URL,
    clientId,
    logger,
    topicPrefix: env.BUS_TOPIC_PREFIX || undefined,
    kafkaCompressMinBytes: env.KAFKA_COMPRESS_MIN_BYTES,
  });
}
