import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server';
import { startKafka } from './kafka-broker';
import { startRedis } from './redis-server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a PostgreSQL server's `postgres` database (tests create their own databases). */
    databaseUrl: string;
    /** Comma-separated Kafka bootstrap brokers. */
    kafkaBrokers: string;
    /** URL of a Redis server. */
    redisUrl: string;
  }
}

const ROOT = join(import.meta.dirname, '../../..');

/**
 * Starts the real infrastructure the integration tests need, once per run: PostgreSQL (embedded),
 * a single-node KRaft Kafka broker and Redis. Each is skipped when its URL is already given in the
 * environment (DATABASE_URL, KAFKA_BROKERS, REDIS_URL).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<void>> = [];
  const tmp = join(ROOT, '.tmp', `test-${process.pid}`);
  try {
    const [pgUrl, kafkaBrokers, redisUrl] = await Promise.all([
      process.env.DATABASE_URL ??
        startPostgres({ dataDir: join(tmp, 'pg'), fresh: true }).then((pg) => {
          stops.push(pg.stop);
          return pg.url;
        }),
      process.env.KAFKA_BROKERS ??
        startKafka({ dataDir: join(tmp, 'kafka') }).then((k) => {
          stops.push(k.stop);
          return k.brokers;
        }),
      process.env.REDIS_URL ??
        startRedis({ dataDir: join(tmp, 'redis') }).then((r) => {
          stops.push(r.stop);
          return r.url;
        }),
    ]);
    project.provide('databaseUrl', pgUrl);
    project.provide('kafkaBrokers', kafkaBrokers);
    project.provide('redisUrl', redisUrl);
  } catch (err) {
    await Promise.allSettled(stops.map((s) => s()));
    throw err;
  }
  return async () => {
    await Promise.allSettled(stops.map((s) => s()));
    rmSync(tmp, { recursive: true, force: true });
  };
}
