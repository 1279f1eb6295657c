import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { LIMIT_SCRIPT } from '../src/rate-limit/redis-limiter';

/**
 * The Redis limiter's Lua script on a real Redis, with the time it is given instead of the server's clock, at the
 * edges of its windows. Expected answers are worked out here from the sliding-window rule the gateway documents
 * (ADR 0005): the estimate is `ceil(previous × (size − elapsed) / size) + current`, a request passes while it is
 * under the limit, and only requests that pass are counted.
 */
const MINUTE = 60_000;
const SECOND = 1_000;

interface Answer {
  allowed: boolean;
  minuteRemaining: number;
  minuteReset: number;
  minuteRetry: number;
  burstRemaining: number;
  burstReset: number;
  burstRetry: number;
}

describe('the Redis rate-limit script at its window boundaries', () => {
  let redis: Redis;
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let n = 0;
  /** A key of its own for each test. */
  const newKey = () => `${prefix}${n++}`;

  beforeAll(() => {
    redis = new Redis(testInfra().redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  async function check(key: string, now: number, perMinute: number, burst: number): Promise<Answer> {
    const r = (await redis.eval(LIMIT_SCRIPT, 1, key, now, MINUTE, SECOND, perMinute, burst)) as number[];
    expect(r).toHaveLength(7);
    const [a, mr, mReset, mRetry, br, bReset, bRetry] = r as [number, number, number, number, number, number, number];
    return {
      allowed: a === 1,
      minuteRemaining: mr,
      minuteReset: mReset,
      minuteRetry: mRetry,
      burstRemaining: br,
      burstReset: bReset,
      burstRetry: bRetry,
    };
  }

  /** Sends `count` requests at `now`, returns how many passed. */
  async function flood(key: string, now: number, count: number, perMinute: number, burst: number): Promise<number> {
    let passed = 0;
    for (let i = 0; i < count; i++) if ((await check(key, now, perMinute, burst)).allowed) passed++;
    return passed;
  }

  // A minute window of our own, far from any real clock: window 1,000,000 starts at 60,000,000,000 ms.
  const W = 1_000_000 * MINUTE;

  it('lets the limit through in one minute window, counts down what remains and refuses the next', async () => {
    const key = newKey();
    for (let i = 1; i <= 10; i++) {
      const a = await check(key, W + 1_000 + i * SECOND, 10, 100);
      expect(a.allowed).toBe(true);
      expect(a.minuteRemaining).toBe(10 - i);
      expect(a.minuteReset).toBe(MINUTE - (1_000 + i * SECOND));
    }
    const refused = await check(key, W + 12_000, 10, 100);
    expect(refused.allowed).toBe(false);
    expect(refused.minuteRemaining).toBe(0);
    // The window ends in 48 s; then the previous window's 10 weigh 10 × (60 − e) / 60 and fall under 10 once
    // e ≥ 6 s: retry after 48 + 6 = 54 s.
    expect(refused.minuteRetry).toBe(48_000 + 6_000);
  });

  it('does not count refused requests', async () => {
    const key = newKey();
    expect(await flood(key, W + 1_000, 25, 10, 100)).toBe(10);
    expect(await redis.hget(key, 'mc')).toBe('10');
  });

  it('carries the previous window at full weight at the boundary and lets requests in as it slides out', async () => {
    const key = newKey();
    expect(await flood(key, W + 30_000, 10, 10, 100)).toBe(10);
    // At the first millisecond of the next window the previous 10 still weigh ceil(10 × 60/60) = 10: refused.
    expect((await check(key, W + MINUTE, 10, 100)).allowed).toBe(false);
    // 5.999 s in: ceil(10 × 54.001 / 60) = ceil(9.0002) = 10, still refused.
    expect((await check(key, W + MINUTE + 5_999, 10, 100)).allowed).toBe(false);
    // 6 s in: 10 × 54 / 60 = 9 exactly: one request passes, then 9 + 1 = 10 is the limit again.
    const first = await check(key, W + MINUTE + 6_000, 10, 100);
    expect(first.allowed).toBe(true);
    expect(first.minuteRemaining).toBe(0);
    expect((await check(key, W + MINUTE + 6_000, 10, 100)).allowed).toBe(false);
    // Half-way: ceil(10 × 30/60) = 5 plus the 1 counted: 4 more pass.
    expect(await flood(key, W + MINUTE + 30_000, 10, 10, 100)).toBe(4);
  });

  it('forgets a window two windows back, and expires the hash after two windows', async () => {
    const key = newKey();
    expect(await flood(key, W + 1_000, 10, 10, 100)).toBe(10);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(2 * MINUTE - 10_000);
    expect(ttl).toBeLessThanOrEqual(2 * MINUTE);
    // Two windows later the old count carries no weight: a full limit again.
    expect(await flood(key, W + 2 * MINUTE + 1, 12, 10, 100)).toBe(10);
  });

  it('applies the burst window on its own one-second boundaries', async () => {
    const key = newKey();
    const t = W + 10 * SECOND;
    expect(await flood(key, t + 100, 5, 1_000, 3)).toBe(3);
    const refused = await check(key, t + 100, 1_000, 3);
    expect(refused.allowed).toBe(false);
    expect(refused.burstRemaining).toBe(0);
    expect(refused.burstReset).toBe(900);
    // Next second, 0 ms in: the previous 3 weigh 3: refused. At 334 ms: ceil(3 × 0.666) = 2: one passes.
    expect((await check(key, t + SECOND, 1_000, 3)).allowed).toBe(false);
    expect((await check(key, t + SECOND + 333, 1_000, 3)).allowed).toBe(false);
    expect((await check(key, t + SECOND + 334, 1_000, 3)).allowed).toBe(true);
    // The minute window counted only the 4 that passed.
    expect(await redis.hget(key, 'mc')).toBe('4');
  });

  it('decides each key of a batch on its own counters', async () => {
    const [a, b] = [newKey(), newKey()];
    expect(await flood(a, W + 1_000, 3, 3, 100)).toBe(3);
    const r = (await redis.eval(LIMIT_SCRIPT, 2, a, b, W + 1_000, MINUTE, SECOND, 3, 100, 3, 100)) as number[];
    expect(r).toHaveLength(14);
    expect(r[0]).toBe(0);
    expect(r[7]).toBe(1);
    expect(r[8]).toBe(2);
  });
});
