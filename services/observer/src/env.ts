import { z } from 'zod';
import { envList, envPort, parseEnv } from '@bda/common';

export const observerEnvSchema = z.object({
  /** Port the node's event emitter POSTs to (the node's `[[events_observer]] endpoint`). */
  OBSERVER_PORT: envPort.default(3700),
  /** Interface to bind. */
  OBSERVER_HOST: z.string().default('0.0.0.0'),
  /** Largest accepted body; the mainnet genesis `/new_block` is about 80 MB. */
  OBSERVER_BODY_LIMIT: z.string().default('512mb'),
  /** Kafka bootstrap brokers (comma-separated). Empty: the embedded bus in PostgreSQL. */
  KAFKA_BROKERS: envList.default(''),
  /** PostgreSQL holding the embedded bus (used when KAFKA_BROKERS is empty). */
  DATABASE_URL: z.string().default('postgres://postgres:postgres@127.0.0.1:5432/postgres'),
  /** Database of the embedded bus, when it is not DATABASE_URL (several indexers reading one bus). */
  BUS_DATABASE_URL: z.string().optional(),
  /** Prefix for bus topic names (isolates test runs sharing a broker). */
  BUS_TOPIC_PREFIX: z.string().default(''),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type ObserverEnv = z.infer<typeof observerEnvSchema>;

export function loadObserverEnv(source: NodeJS.ProcessEnv = process.env): ObserverEnv {
  return parseEnv(observerEnvSchema, source);
}
