/**
 * The real infrastructure of an integration run, as the global setup (`setupTestInfra`) started or took it from
 * DATABASE_URL / KAFKA_BROKERS / REDIS_URL. The global setup runs once in jest's parent process before any test
 * file and hands the URLs down in these variables, which every test process (and every child process a test
 * starts) inherits.
 */
export interface TestInfra {
  /** URL of a PostgreSQL server's `postgres` database (tests create their own databases). */
  databaseUrl: string;
  /** Comma-separated Kafka bootstrap brokers. */
  kafkaBrokers: string;
  /** URL of a Redis server. */
  redisUrl: string;
  /** This run's id (8 hex digits): names what a run creates once and shares between its files (template databases). */
  runId: string;
}

/** The variables the global setup writes; a test reads them through `testInfra()`. */
export const TEST_INFRA_ENV = {
  databaseUrl: 'BDA_TEST_DATABASE_URL',
  kafkaBrokers: 'BDA_TEST_KAFKA_BROKERS',
  redisUrl: 'BDA_TEST_REDIS_URL',
  runId: 'BDA_TEST_RUN_ID',
} as const satisfies Record<keyof TestInfra, string>;

/** The run's PostgreSQL, Kafka and Redis; throws when the global setup has not run (a unit test asking for them). */
export function testInfra(): TestInfra {
  const read = (key: keyof TestInfra): string => {
    const value = process.env[TEST_INFRA_ENV[key]];
    if (!value) {
      throw new Error(
        `${TEST_INFRA_ENV[key]} is not set: testInfra() is for integration tests (test/ folders), whose global setup starts PostgreSQL, Kafka and Redis`,
      );
    }
    return value;
  };
  return {
    databaseUrl: read('databaseUrl'),
    kafkaBrokers: read('kafkaBrokers'),
    redisUrl: read('redisUrl'),
    runId: read('runId'),
  };
}
