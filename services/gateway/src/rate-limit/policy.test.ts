import { describe, expect, it } from '@jest/globals';
import { limitHeaders } from './headers';
import { MemoryLimiter } from './memory-limiter';
import { anonymousSubject, evaluateWindow, keySubject, MINUTE_MS, type Subject } from './policy';

const cfg = { anonymousPerMinute: 50, keyPerMinute: 500, burstPerSecond: 20 };

function clock(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

function run(limiter: MemoryLimiter, subject: Subject, n: number): number {
  let allowed = 0;
  for (let i = 0; i < n; i++) if (limiter.checkSync(subject).allowed) allowed++;
  return allowed;
}

describe('policy', () => {
  it('defaults to the reference numbers: 50/min anonymous, 500/min per key, 20/s bursts', () => {
    expect(anonymousSubject('1.2.3.4', cfg)).toEqual({
      id: 'ip:1.2.3.4',
      tier: 'anonymous',
      limits: { perMinute: 50, burst: 20 },
    });
    expect(keySubject('7', { rateLimitPerMinute: null, burstPerSecond: null }, cfg).limits).toEqual({
      perMinute: 500,
      burst: 20,
    });
  });

  it('scales the burst of a custom limit with it, never below the default', () => {
    expect(keySubject('7', { rateLimitPerMinute: 10_000, burstPerSecond: null }, cfg)).toMatchObject({
      tier: 'custom',
      limits: { perMinute: 10_000, burst: 400 },
    });
    expect(keySubject('7', { rateLimitPerMinute: 600, burstPerSecond: null }, cfg).limits.burst).toBe(24);
    expect(keySubject('7', { rateLimitPerMinute: 100, burstPerSecond: null }, cfg).limits.burst).toBe(20);
    expect(keySubject('7', { rateLimitPerMinute: 10_000, burstPerSecond: 50 }, cfg).limits.burst).toBe(50);
  });
});

describe('sliding window', () => {
  it('allows exactly the limit in a window and counts refused requests nowhere', () => {
    const c = clock(10 * MINUTE_MS + 5_000);
    const l = new MemoryLimiter('memory', c.now);
    const s: Subject = { id: 'a', tier: 'anonymous', limits: { perMinute: 10, burst: 100 } };
    expect(run(l, s, 15)).toBe(10);
    c.t += 1_000;
    expect(run(l, s, 5)).toBe(0);
  });

  it('does not let a burst through twice across a window boundary', () => {
    // 10 requests just before the boundary, then more just after it: the previous window still weighs ~10.
    const c = clock(11 * MINUTE_MS - 100);
    const l = new MemoryLimiter('memory', c.now);
    const s: Subject = { id: 'a', tier: 'anonymous', limits: { perMinute: 10, burst: 100 } };
    expect(run(l, s, 10)).toBe(10);
    c.t += 200;
    expect(run(l, s, 10)).toBe(0);
  });

  it('allows again once the previous window has slid out', () => {
    const c = clock(20 * MINUTE_MS);
    const l = new MemoryLimiter('memory', c.now);
    const s: Subject = { id: 'a', tier: 'anonymous', limits: { perMinute: 10, burst: 100 } };
    expect(run(l, s, 10)).toBe(10);
    c.t += 2 * MINUTE_MS;
    expect(run(l, s, 10)).toBe(10);
  });

  it('applies the burst window on its own', () => {
    const c = clock(30 * MINUTE_MS);
    const l = new MemoryLimiter('memory', c.now);
    const s: Subject = { id: 'a', tier: 'key', limits: { perMinute: 500, burst: 20 } };
    expect(run(l, s, 30)).toBe(20);
    c.t += 2_000;
    expect(run(l, s, 30)).toBe(20);
  });

  it('keeps subjects apart', () => {
    const c = clock(40 * MINUTE_MS);
    const l = new MemoryLimiter('memory', c.now);
    const limits = { perMinute: 3, burst: 100 };
    expect(run(l, { id: 'a', tier: 'anonymous', limits }, 5)).toBe(3);
    expect(run(l, { id: 'b', tier: 'anonymous', limits }, 5)).toBe(3);
  });

  it('tells a refused client a retry time after which it is allowed, and not much earlier', () => {
    for (const offset of [0, 1_000, 30_000, 59_000]) {
      const c = clock(50 * MINUTE_MS + offset);
      const l = new MemoryLimiter('memory', c.now);
      const s: Subject = { id: 'a', tier: 'anonymous', limits: { perMinute: 5, burst: 100 } };
      run(l, s, 5);
      c.t += 10_000;
      const refused = l.checkSync(s);
      expect(refused.allowed).toBe(false);
      const retry = refused.minute.retryMs;
      expect(retry).toBeGreaterThan(0);
      c.t += retry - 1;
      expect(l.checkSync(s).allowed).toBe(false);
      c.t += 1;
      expect(l.checkSync(s).allowed).toBe(true);
    }
  });

  it('reports remaining and reset of the current window', () => {
    const r = evaluateWindow({ w: 100, cur: 3, prev: 0 }, 100 * MINUTE_MS + 15_000, MINUTE_MS, 10);
    expect(r.result).toEqual({ limit: 10, remaining: 6, resetMs: 45_000, retryMs: 0 });
  });

  it('forgets idle subjects when sweeping', () => {
    const c = clock(60 * MINUTE_MS);
    const l = new MemoryLimiter('memory', c.now);
    run(l, { id: 'a', tier: 'anonymous', limits: { perMinute: 3, burst: 3 } }, 1);
    c.t += 3 * MINUTE_MS;
    l.sweep();
    expect(l.size).toBe(0);
  });
});

describe('limitHeaders', () => {
  it('writes the IETF draft fields for both windows and the provider fields for the minute', () => {
    const h = limitHeaders({
      allowed: true,
      source: 'redis',
      minute: { limit: 50, remaining: 49, resetMs: 42_500, retryMs: 0 },
      burst: { limit: 20, remaining: 19, resetMs: 300, retryMs: 0 },
    });
    expect(h).toEqual({
      'ratelimit-policy': '"minute";q=50;w=60, "burst";q=20;w=1',
      ratelimit: '"minute";r=49;t=43, "burst";r=19;t=1',
      'ratelimit-limit': '50',
      'ratelimit-remaining': '49',
      'ratelimit-reset': '43',
    });
  });

  it('adds retry-after on a refusal, and describes the burst window when it refused', () => {
    const h = limitHeaders({
      allowed: false,
      source: 'redis',
      minute: { limit: 50, remaining: 30, resetMs: 42_000, retryMs: 0 },
      burst: { limit: 20, remaining: 0, resetMs: 300, retryMs: 1_300 },
    });
    expect(h['retry-after']).toBe('2');
    expect(h['ratelimit-limit']).toBe('20');
    expect(h['ratelimit-remaining']).toBe('0');
    expect(h['ratelimit-reset']).toBe('2');
    expect(h.ratelimit).toBe('"minute";r=30;t=42, "burst";r=0;t=2');
  });
});
