import { Redis } from 'ioredis';

/**
 * A Redis connection for the fence: commands fail fast instead of queueing while Redis is away (a fence must know
 * when it cannot reach Redis, and a holder must stop serving), and the connection comes back on its own.
 * `commandTimeoutMs` undefined: no timeout (the blocking connection, whose commands carry their own).
 */
export function fenceConnection(url: string, commandTimeoutMs: number | undefined): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResubscribe: false,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
    lazyConnect: true,
  });
  redis.on('error', () => undefined); // each command's failure is handled where it is made
  void redis.connect().catch(() => undefined);
  return redis;
}
