/**
 * Entry point of the gateway service: `node --import tsx services/gateway/src/main.ts` (`npm start -w @bda/gateway`).
 * Parses the environment, runs the gateway's migrations once, then serves with GATEWAY_WORKERS processes
 * (node:cluster; 1 = this process alone).
 */
import cluster from 'node:cluster';
import { createLogger, runClusterPrimary, serveClusterMetrics } from '@bda/common';
import { createDb } from '@bda/db';
import { migrateToLatest } from './db/migrate';
import { loadEnv, type GatewayEnv } from './env';
import { serveIpcLimiter } from './rate-limit/ipc-limiter';
import { startGateway } from './start-gateway';

let env: GatewayEnv;
try {
  env = loadEnv();
} catch (err) {
  // The configuration is refused before the configured logger exists: a default one says why.
  createLogger('gateway', 'info').fatal({ err }, 'gateway configuration is invalid');
  process.exit(1);
}
const logger = createLogger('gateway', env.LOG_LEVEL);

async function migrate(): Promise<void> {
  const db = createDb({ connectionString: env.DATABASE_URL, maxConnections: 1, applicationName: 'gateway-migrate', logger });
  try {
    const applied = await migrateToLatest(db, env.DATABASE_URL);
    if (applied.length > 0) logger.info({ applied }, 'gateway migrations applied');
  } finally {
    await db.destroy();
  }
}

async function primary(): Promise<void> {
  await migrate();
  if (env.GATEWAY_WORKERS === 1) {
    await startGateway(env, logger, 'single');
    return;
  }
  serveClusterMetrics(cluster, 'gateway');
  if (env.RATE_LIMIT_ENABLED && !env.REDIS_URL) serveIpcLimiter(cluster);
  runClusterPrimary({ workers: env.GATEWAY_WORKERS, logger, name: 'gateway' });
}

async function main(): Promise<void> {
  if (cluster.isPrimary) await primary();
  else await startGateway(env, logger, 'worker');
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'gateway failed to start');
  process.exit(1);
});
