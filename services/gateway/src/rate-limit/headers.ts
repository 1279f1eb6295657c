import type { Decision } from './policy';

export interface LimitHeaders {
  [name: string]: string;
}

/**
 * Response headers for a decision: the IETF draft fields (httpapi-ratelimit-headers-10) for both windows,
 * and the provider's `ratelimit-limit/remaining/reset` for the minute window (or for the burst window when
 * it is the one that refused the request). `retry-after` only on a refusal.
 */
export function limitHeaders(d: Decision): LimitHeaders {
  const m = d.minute;
  const b = d.burst;
  const mReset = Math.max(1, Math.ceil(m.resetMs / 1000));
  const bReset = Math.max(1, Math.ceil(b.resetMs / 1000));
  const h: LimitHeaders = {
    'ratelimit-policy': `"minute";q=${m.limit};w=60, "burst";q=${b.limit};w=1`,
    ratelimit: `"minute";r=${m.remaining};t=${d.allowed || m.retryMs === 0 ? mReset : retrySeconds(m.retryMs)}, "burst";r=${b.remaining};t=${d.allowed || b.retryMs === 0 ? bReset : retrySeconds(b.retryMs)}`,
  };
  const byBurst = !d.allowed && b.retryMs > 0 && b.retryMs >= m.retryMs;
  const w = byBurst ? b : m;
  const reset = d.allowed || w.retryMs === 0 ? (byBurst ? bReset : mReset) : retrySeconds(w.retryMs);
  h['ratelimit-limit'] = String(w.limit);
  h['ratelimit-remaining'] = String(w.remaining);
  h['ratelimit-reset'] = String(reset);
  if (!d.allowed) h['retry-after'] = String(retrySeconds(Math.max(m.retryMs, b.retryMs)));
  return h;
}

function retrySeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
