import type { Logger } from '@bda/common';
import type { Counter } from 'prom-client';
import { MemoryLimiter } from './memory-limiter';
import type { Decision, Limiter, Subject } from './policy';
import type { LeaseLimiter } from './lease-limiter';

/** After a failure, Redis is left alone this long (requests do not each wait for a timeout meanwhile). */
const BREAK_MS = 1_000;

/**
 * Redis first; when Redis fails (down, slow, erroring) a local in-memory limiter keeps serving with the same
 * policy, per process. After a failure Redis is skipped for a second, then tried again. Every decision taken
 * without Redis is counted; the log gets one line when the outage starts, one every 30 s while it lasts, and
 * one when Redis answers again.
 */
export class FallbackLimiter implements Limiter {
  private readonly local = new MemoryLimiter('fallback');
  private skipUntil = 0;
  private degradedSince = 0;
  private lastLog = 0;
  private failuresSinceLog = 0;

  constructor(
    private readonly redis: Pick<LeaseLimiter, 'available' | 'check'>,
    private readonly logger: Logger,
    private readonly counters: { redisErrors: Counter<string>; fallbackDecisions: Counter<string> },
  ) {}

  get degraded(): boolean {
    return this.degradedSince !== 0;
  }

  async check(subject: Subject): Promise<Decision> {
    if (!this.redis.available) {
      this.fail(new Error('redis is not connected'), false);
      return this.fallback(subject);
    }
    if (this.skipUntil !== 0 && Date.now() < this.skipUntil) return this.fallback(subject);
    try {
      const d = await this.redis.check(subject);
      this.skipUntil = 0;
      if (this.degradedSince !== 0) {
        this.logger.warn(
          { downMs: Date.now() - this.degradedSince, failures: this.failuresSinceLog },
          'rate limiting is back on redis',
        );
        this.degradedSince = 0;
        this.failuresSinceLog = 0;
      }
      return d;
    } catch (err) {
      this.fail(err as Error);
      return this.fallback(subject);
    }
  }

  private fallback(subject: Subject): Decision {
    this.counters.fallbackDecisions.inc();
    return this.local.checkSync(subject);
  }

  private fail(err: Error, fromRedis = true): void {
    this.counters.redisErrors.inc();
    this.failuresSinceLog++;
    const now = Date.now();
    if (fromRedis) this.skipUntil = now + BREAK_MS;
    if (this.degradedSince === 0) {
      this.degradedSince = now;
      this.lastLog = now;
      this.logger.error({ err: { message: err.message } }, 'rate limiting on redis failed: using the local limiter');
      this.failuresSinceLog = 0;
    } else if (now - this.lastLog >= 30_000) {
      this.lastLog = now;
      this.logger.error(
        { err: { message: err.message }, failures: this.failuresSinceLog, downMs: now - this.degradedSince },
        'rate limiting on redis still failing: using the local limiter',
      );
      this.failuresSinceLog = 0;
    }
  }

  async close(): Promise<void> {
    await this.local.close();
  }
}
