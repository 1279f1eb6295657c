// Two projects: `unit` tests live beside the code (src/**/*.test.ts) and need nothing running; `integration` tests
// live in each package's test/ folder and get real PostgreSQL, Kafka and Redis from the global setup (or from
// DATABASE_URL / KAFKA_BROKERS / REDIS_URL when those are set), read through `testInfra()` of @bda/test-support.
// TypeScript is stripped by @swc/jest (no type-checking there: `make typecheck` does that) into native ESM, which
// jest runs under `node --experimental-vm-modules` (see the Makefile). Integration files share one PostgreSQL,
// Kafka and Redis on a 2-core machine: the Makefile runs jest with --runInBand, one file at a time (ADR 0021).

/** @type {import('jest').Config['transform']} */
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, sourceMaps: 'inline' }],
};

/** @type {Partial<import('jest').Config>} */
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform,
  testEnvironment: '<rootDir>/libs/test-support/src/jest-environment.ts',
  // Scratch space (benches, copies of the tree at other commits): never modules or tests of this checkout.
  modulePathIgnorePatterns: ['<rootDir>/.tmp/', '<rootDir>/.cache/', '<rootDir>/dist/'],
};

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/*/src/**/*.test.ts', '<rootDir>/services/*/src/**/*.test.ts'],
      testEnvironmentOptions: { testTimeout: 20_000, hookTimeout: 20_000 },
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/libs/*/test/**/*.test.ts', '<rootDir>/services/*/test/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      testEnvironmentOptions: { testTimeout: 120_000, hookTimeout: 180_000 },
    },
  ],
};
