import { Redis } from 'ioredis';
import type { Logger, ShutdownRegistry } from '@bda/common';
import type { GatewayEnv } from '../env';
import type { GatewayMetrics } from '../metrics';
import { FallbackLimiter } from '../rate-limit/fallback-limiter';
import { IpcLimiter } from '../rate-limit/ipc-limiter';
import { MemoryLimiter } from '../rate-limit/memory-limiter';
import type { Limiter } from '../rate-limit/policy';
import { LeaseLimiter } from '../rate-limit/lease-limiter';
import { RedisLeaseBackend } from '../rate-limit/redis-limiter';

/**
 * The rate limiter of one process: Redis shared by every replica (with a local fallback), or in-memory counters (shared
 * by the workers of one host through the primary). Undefined when RATE_LIMIT_ENABLED is off.
 */
export async function createLimiter(
  env: GatewayEnv,
  mode: 'single' | 'worker',
  logger: Logger,
  metrics: GatewayMetrics,
  shutdown: ShutdownRegistry,
): Promise<Limiter | undefined> {
  if (!env.RATE_LIMIT_ENABLED) return undefined;
  let limiter: Limiter;
  if (env.REDIS_URL) {
    const redis = new Redis(env.REDIS_URL, {
      // Fail fast instead of queueing: the local limiter decides while Redis is away.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: env.REDIS_COMMAND_TIMEOUT_MS,
      enableAutoPipelining: true,
      retryStrategy: (times) => Math.min(100 * times, 2_000),
      lazyConnect: true,
    });
    redis.on('error', () => undefined); // counted and logged by the fallback limiter
    await redis.connect().catch((err: Error) => logger.error({ err: { message: err.message } }, 'redis unavailable at startup'));
    const leases = new LeaseLimiter(new RedisLeaseBackend(redis, env.REDIS_KEY_PREFIX), {
      maxUnits: env.RATE_LIMIT_LEASE_MAX,
    });
    limiter = new FallbackLimiter(leases, logger, metrics);
    // Once the servers are drained, unused leased units go back to Redis (before the connection is closed).
    shutdown.register('work', 'rate-limit leases', () => leases.close());
    shutdown.register('clients', 'redis', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  } else {
    limiter = mode === 'worker' ? new IpcLimiter(process, 250, env.RATE_LIMIT_LEASE_MAX) : new MemoryLimiter();
  }
  shutdown.register('clients', 'limiter', () => limiter.close?.());
  return limiter;
}
