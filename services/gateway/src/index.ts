// The gateway as a library (tests, tools). The process entry point is main.ts.
export { buildAdminApp, buildApp, type GatewayDeps } from './build-app';
export { envSchema, loadEnv, DEFAULT_NODE_ROUTES, type GatewayEnv } from './env';
export { startGateway } from './start-gateway';
export { migrateToLatest, rollbackAll, migrationConfig } from './db/migrate';
export { createKey, listKeys, revokeKey } from './keys/key-repository';
export { KeyStore } from './keys/key-store';
export { LeaseLimiter } from './rate-limit/lease-limiter';
export { RedisLeaseBackend } from './rate-limit/redis-limiter';
export type { Subject } from './rate-limit/policy';
