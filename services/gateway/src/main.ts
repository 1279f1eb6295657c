/**
 * Entry point of the gateway service: `node --import tsx services/gateway/src/main.ts` (`npm start -w @bda/gateway`).
 * Parses the environment, runs the gateway's migrations once, then serves with GATEWAY_WORKERS processes
 * (node:cluster; 1 = this process alone).
 */
import cluster, { type Worker } from 'node:cluster';
import { createLogger } from '@bda/common';
import { serveClusterMetrics } from './cluster-metrics';
import { createDb, migrateToLatest } from './db/migrate';
import { loadEnv } from './env';
import { serveIpcLimiter } from './rate-limit/ipc-limiter';
import { startGateway } from './server';

const env = loadEnv();
const logger = createLogger('gateway', env.LOG_LEVEL);

async function migrate(): Promise<void> {
  const db = createDb(env.DATABASE_URL, 1);
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
  serveClusterMetrics(cluster);
  if (env.RATE_LIMIT_ENABLED && !env.REDIS_URL) serveIpcLimiter(cluster);
  let stopping = false;
  const recentExits: number[] = [];
  const fork = () => cluster.fork();
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.id, code, signal }, 'gateway worker exited; starting another');
    const now = Date.now();
    recentExits.push(now);
    while (recentExits.length > 0 && recentExits[0]! < now - 60_000) recentExits.shift();
    if (recentExits.length > 10) {
      logger.fatal('gateway workers keep exiting; giving up');
      process.exit(1);
    }
    setTimeout(fork, 1_000).unref();
  });
  for (let i = 0; i < env.GATEWAY_WORKERS; i++) fork();
  logger.info({ workers: env.GATEWAY_WORKERS }, 'gateway primary started');

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutdown requested: stopping workers');
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    for (const w of workers) w.process.kill('SIGTERM');
    const force = setTimeout(() => {
      for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
    }, 30_000);
    force.unref();
    void Promise.all(workers.map((w) => (w.isDead() ? undefined : new Promise((r) => w.once('exit', r))))).then(() => {
      clearTimeout(force);
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function main(): Promise<void> {
  if (cluster.isPrimary) await primary();
  else await startGateway(env, logger, 'worker');
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'gateway failed to start');
  process.exit(1);
});
