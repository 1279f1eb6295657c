import { RateLimitedError } from '@bda/common';
import type { GatewayMetrics } from '../metrics';
import { limitHeaders, type LimitHeaders } from './headers';
import type { Limiter, Subject } from './policy';

export interface LimitDeps {
  /** Undefined when rate limiting is off. */
  limiter: Limiter | undefined;
  metrics: Pick<GatewayMetrics, 'rateLimitDecisions'>;
}

/**
 * Where a limit is decided: counts one request against the subject's windows. Resolves with the rate-limit headers
 * of the answer (none when limiting is off); throws RateLimitedError, carrying the same headers and `Retry-After`,
 * once the subject's budget is spent.
 */
export async function limitRequest(deps: LimitDeps, subject: Subject): Promise<LimitHeaders | undefined> {
  if (!deps.limiter) return undefined;
  const decision = await deps.limiter.check(subject);
  deps.metrics.rateLimitDecisions.inc(subject.tier, decision.allowed ? 'allowed' : 'limited');
  const h = limitHeaders(decision);
  if (decision.allowed) return h;
  const retryAfter = Number(h['retry-after']);
  const err = new RateLimitedError(
    `rate limit exceeded (${subject.tier === 'anonymous' ? 'per client address' : 'per key'}); retry in ${retryAfter} s`,
    retryAfter,
  );
  err.headers = h;
  throw err;
}
