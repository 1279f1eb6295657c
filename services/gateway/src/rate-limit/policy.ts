/**
 * The rate-limit policy: who is counted (a client IP group or a key) and the two windows that apply
 * (requests a minute and a short burst window). The numbers default to the reference policy:
 * anonymous 50/min per IP, 500/min per key, a custom limit per key for contracts, 20/s bursts.
 */

export const MINUTE_MS = 60_000;
export const BURST_MS = 1_000;

type Tier = 'anonymous' | 'key' | 'custom';

export interface Limits {
  /** Requests allowed in the sliding minute. */
  perMinute: number;
  /** Requests allowed in the sliding second. */
  burst: number;
}

export interface Subject {
  /** Counter identity, e.g. `ip:1.2.3.4` or `key:42`. */
  id: string;
  tier: Tier;
  limits: Limits;
}

export interface PolicyConfig {
  anonymousPerMinute: number;
  keyPerMinute: number;
  burstPerSecond: number;
}

export interface KeyLimits {
  /** Custom requests a minute (contracts); null = the keyed default. */
  rateLimitPerMinute: number | null;
  /** Custom burst; null = the default burst, scaled up for custom limits. */
  burstPerSecond: number | null;
}

export function anonymousSubject(group: string, cfg: PolicyConfig): Subject {
  return { id: `ip:${group}`, tier: 'anonymous', limits: { perMinute: cfg.anonymousPerMinute, burst: cfg.burstPerSecond } };
}

export function keySubject(keyId: string, key: KeyLimits, cfg: PolicyConfig): Subject {
  if (key.rateLimitPerMinute === null) {
    return {
      id: `key:${keyId}`,
      tier: 'key',
      limits: { perMinute: cfg.keyPerMinute, burst: key.burstPerSecond ?? cfg.burstPerSecond },
    };
  }
  // A custom limit keeps the keyed tier's burst-to-minute ratio, so that a contract for 10,000 a minute is
  // not held to 20 a second; never below the default burst.
  const scaled = Math.ceil((key.rateLimitPerMinute * cfg.burstPerSecond) / cfg.keyPerMinute);
  return {
    id: `key:${keyId}`,
    tier: 'custom',
    limits: { perMinute: key.rateLimitPerMinute, burst: key.burstPerSecond ?? Math.max(cfg.burstPerSecond, scaled) },
  };
}

/** One window's state after a decision. */
export interface WindowResult {
  limit: number;
  remaining: number;
  /** Milliseconds until the current fixed window ends. */
  resetMs: number;
  /** When limited by this window: milliseconds until a request would be allowed again; otherwise 0. */
  retryMs: number;
}

export interface Decision {
  allowed: boolean;
  minute: WindowResult;
  burst: WindowResult;
  /** Which backend decided (`redis`, `memory`, `fallback`). */
  source: string;
}

export interface Limiter {
  check(subject: Subject): Promise<Decision>;
  close?(): Promise<void>;
}

/** Counts of one window: the current fixed window `w` and the one before it. */
export interface WindowState {
  w: number;
  cur: number;
  prev: number;
}

/**
 * Sliding-window counter over two fixed windows: the estimate is the current count plus the previous
 * window's count weighted by how much of it still overlaps the sliding window, rounded up (so a burst that
 * straddles a window boundary is not let through twice). Denied requests are not counted.
 * The Redis Lua script implements the same arithmetic.
 */
export function evaluateWindow(
  state: WindowState | undefined,
  nowMs: number,
  sizeMs: number,
  limit: number,
): { cur: number; prev: number; w: number; allowed: boolean; result: WindowResult } {
  const w = Math.floor(nowMs / sizeMs);
  let cur = 0;
  let prev = 0;
  if (state) {
    if (state.w === w) {
      cur = state.cur;
      prev = state.prev;
    } else if (state.w === w - 1) {
      prev = state.cur;
    }
  }
  const elapsed = nowMs - w * sizeMs;
  const weighted = Math.ceil((prev * (sizeMs - elapsed)) / sizeMs);
  const estimate = weighted + cur;
  const allowed = estimate < limit;
  const resetMs = sizeMs - elapsed;
  let retryMs = 0;
  if (!allowed) {
    if (cur >= limit) {
      // Wait for the next window, then for this window's weight to fall to limit - 1.
      const need = limit - 1;
      const frac = cur === 0 ? 0 : Math.max(0, 1 - need / cur);
      retryMs = resetMs + Math.ceil(frac * sizeMs);
    } else {
      const need = limit - 1 - cur;
      const frac = prev === 0 ? 0 : Math.max(0, 1 - need / prev);
      retryMs = Math.max(1, Math.ceil(frac * sizeMs) - elapsed);
    }
  }
  return {
    w,
    cur,
    prev,
    allowed,
    result: { limit, remaining: Math.max(0, limit - estimate - (allowed ? 1 : 0)), resetMs, retryMs },
  };
}

/** Both windows for one subject; the request is counted in both only when both allow it. */
export function decide(
  minuteState: WindowState | undefined,
  burstState: WindowState | undefined,
  nowMs: number,
  limits: Limits,
): { allowed: boolean; minute: WindowState; burst: WindowState; decision: Omit<Decision, 'source'> } {
  const m = evaluateWindow(minuteState, nowMs, MINUTE_MS, limits.perMinute);
  const b = evaluateWindow(burstState, nowMs, BURST_MS, limits.burst);
  const allowed = m.allowed && b.allowed;
  if (!allowed) {
    // The request is not counted: an allowing window keeps its remaining as it was.
    if (m.allowed) m.result.remaining += 1;
    if (b.allowed) b.result.remaining += 1;
  }
  return {
    allowed,
    minute: { w: m.w, cur: m.cur + (allowed ? 1 : 0), prev: m.prev },
    burst: { w: b.w, cur: b.cur + (allowed ? 1 : 0), prev: b.prev },
    decision: { allowed, minute: m.result, burst: b.result },
  };
}
