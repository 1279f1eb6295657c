import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres } from './postgres-server';
import { startKafka } from './kafka-broker';
import { startRedis } from './redis-server';
import { TEST_INFRA_ENV } from './test-infra';

const ROOT = join(import.meta.dirname, '../../..');

/** What `stopTestInfra` (the global teardown, same process) needs to stop; jest runs both in its parent process. */
interface InfraState {
  stops: Array<() => Promise<void>>;
  tmp: string;
}
const STATE = Symbol.for('bda.test-infra');
type WithState = typeof globalThis & { [STATE]?: InfraState };

/**
 * The heart of jest's global setup of the integration project (test/support/global-setup.ts): starts the real
 * infrastructure the integration tests need, once per run: PostgreSQL (embedded), a single-node KRaft Kafka broker and Redis. Each is skipped when its URL is
 * already given in the environment (DATABASE_URL, KAFKA_BROKERS, REDIS_URL). The URLs are handed to the test
 * processes in environment variables that `testInfra()` reads.
 */
export async function setupTestInfra(): Promise<void> {
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
    process.env[TEST_INFRA_ENV.databaseUrl] = pgUrl;
    process.env[TEST_INFRA_ENV.kafkaBrokers] = kafkaBrokers;
    process.env[TEST_INFRA_ENV.redisUrl] = redisUrl;
    process.env[TEST_INFRA_ENV.runId] = randomBytes(4).toString('hex');
  } catch (err) {
    await Promise.allSettled(stops.map((s) => s()));
    throw err;
  }
  (globalThis as WithState)[STATE] = { stops, tmp };
}

/** Stops what `setupTestInfra` started (jest's global teardown, test/support/global-teardown.ts). */
export async function stopTestInfra(): Promise<void> {
  const state = (globalThis as WithState)[STATE];
  if (!state) return;
  delete (globalThis as WithState)[STATE];
  await Promise.allSettled(state.stops.map((s) => s()));
  rmSync(state.tmp, { recursive: true, force: true });
}
