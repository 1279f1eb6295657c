import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

export interface ClusterPrimaryOptions {
  /** Worker processes to keep running. */
  workers: number;
  logger: Logger;
  /** Service name for log lines. */
  name: string;
  /** How long workers get to finish their ordered shutdown before SIGKILL. */
  stopTimeoutMs?: number;
}

/**
 * The primary of a node:cluster service: forks `workers` copies of the entry point (each runs the service and its
 * own ordered shutdown), starts another when one dies (giving up, exit 1, after more than 10 deaths in a minute),
 * and on SIGTERM/SIGINT passes SIGTERM to every worker, waits for all of them to exit, then exits 0.
 */
export function runClusterPrimary(opts: ClusterPrimaryOptions): void {
  const { logger, name } = opts;
  let stopping = false;
  const recentExits: number[] = [];
  const fork = () => {
    if (!stopping) cluster.fork();
  };
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.id, code, signal }, `${name} worker exited; starting another`);
    const now = Date.now();
    recentExits.push(now);
    while (recentExits.length > 0 && recentExits[0]! < now - 60_000) recentExits.shift();
    if (recentExits.length > 10) {
      logger.fatal(`${name} workers keep exiting; giving up`);
      process.exit(1);
    }
    setTimeout(fork, 1_000).unref();
  });
  for (let i = 0; i < opts.workers; i++) fork();
  logger.info({ workers: opts.workers }, `${name} primary started`);

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutdown requested: stopping workers');
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    for (const w of workers) w.process.kill('SIGTERM');
    const force = setTimeout(() => {
      for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
    }, opts.stopTimeoutMs ?? 30_000);
    force.unref();
    void Promise.all(workers.map((w) => (w.isDead() ? undefined : new Promise((r) => w.once('exit', r))))).then(() => {
      clearTimeout(force);
      logger.info(`${name} workers stopped`);
      process.exit(0);
    });
  };
  // A loader (tsx) may have its own listeners that exit at once: the primary waits for its workers instead.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
