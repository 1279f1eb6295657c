import { defineConfig } from 'vitest/config';

// Two projects: `unit` tests live beside the code (src/**/*.test.ts) and need nothing running;
// `integration` tests live in each package's test/ folder and get real PostgreSQL, Kafka and Redis
// from the global setup (or from DATABASE_URL / KAFKA_BROKERS / REDIS_URL when those are set).
export default defineConfig({
  test: {
    // Integration files share one PostgreSQL, Kafka and Redis on a 2-core machine: one file at a time.
    fileParallelism: false,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['libs/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
          globalSetup: ['libs/test-support/src/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
