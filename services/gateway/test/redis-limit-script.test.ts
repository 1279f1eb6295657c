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

  /** One request (a lease of one unit, nothing given back). */
  async function check(key: string, now: number, perMinute: number, burst: number): Promise<Answer> {
    const a = await take(key, now, perMinute, burst, 1);
    expect([0, 1]).toContain(a.granted);
    return { ...a, allowed: a.granted === 1 };
  }

  /** A lease of `want` units, giving `back` units counted in the windows `backWindows` back first. */
  async function take(
    key: string,
    now: number,
    perMinute: number,
    burst: number,
    want: number,
    back = 0,
    backWindows: [number, number] = [0, 0],
  ): Promise<Answer & { granted: number; minuteWindow: number; burstWindow: number }> {
    const r = (await redis.eval(
      LIMIT_SCRIPT,
      1,
      key,
      now,
      MINUTE,
      SECOND,
      perMinute,
      burst,
      want,
      back,
      ...backWindows,
    )) as number[];
    expect(r).toHaveLength(9);
    const [g, mr, mReset, mRetry, br, bReset, bRetry, mw, bw] = r as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    return {
      granted: g,
      minuteWindow: mw,
      burstWindow: bw,
      allowed: g > 0,
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
    const r = (await redis.eval(
      LIMIT_SCRIPT,
      2,
      a,
      b,
      W + 1_000,
      MINUTE,
      SECOND,
      3,
      100,
      1,
      0,
      0,
      0,
      3,
      100,
      1,
      0,
      0,
      0,
    )) as number[];
    expect(r).toHaveLength(18);
    expect(r[0]).toBe(0);
    expect(r[9]).toBe(1);
    expect(r[10]).toBe(2);
  });

  it('grants a lease of several units up to what both windows allow, and counts them at once', async () => {
    const key = newKey();
    const t = W + 5 * SECOND + 200;
    // 10 a minute, 6 a second: a lease of 4 passes whole, the next one gets the 2 left of the burst window.
    const first = await take(key, t, 10, 6, 4);
    expect(first).toMatchObject({
      granted: 4,
      minuteRemaining: 6,
      burstRemaining: 2,
      minuteWindow: W / MINUTE,
      burstWindow: Math.floor(t / SECOND),
    });
    const second = await take(key, t + 1, 10, 6, 4);
    expect(second).toMatchObject({ granted: 2, minuteRemaining: 4, burstRemaining: 0, burstRetry: 0 });
    expect(await redis.hmget(key, 'mc', 'bc')).toEqual(['6', '6']);
    // Nothing left in the burst window: refused, with the time until the next second's weighted count allows one.
    const refused = await take(key, t + 2, 10, 6, 4);
    expect(refused.granted).toBe(0);
    // 798 ms to the boundary; then the previous 6 weigh ceil(6 × (1000 − e) / 1000), 5 once e ≥ 166.7 ms: + 167.
    expect(refused.burstRetry).toBe(798 + 167);
    // A whole minute's limit: 4 left, a lease of 8 gets them in a later second (the burst window has slid out).
    expect((await take(key, t + 3 * SECOND, 10, 6, 8)).granted).toBe(4);
    expect((await take(key, t + 4 * SECOND, 10, 6, 8)).granted).toBe(0);
  });

  it('gives back unused units in the windows they were counted in, and only there', async () => {
    const key = newKey();
    const t = W + 20 * SECOND + 100;
    const lease = await take(key, t, 100, 50, 10);
    expect(lease.granted).toBe(10);
    // Same second: 7 of the 10 go back to both windows.
    const back = await take(key, t + 500, 100, 50, 0, 7, [lease.minuteWindow, lease.burstWindow]);
    expect(back.granted).toBe(0);
    expect(await redis.hmget(key, 'mc', 'bc', 'bp')).toEqual(['3', '3', '0']);
    // A lease counted one second, given back in the next: the burst window's previous count and the minute's count.
    const second = await take(key, t + SECOND, 100, 50, 10);
    expect(second.granted).toBe(10);
    await take(key, t + 2 * SECOND, 100, 50, 0, 4, [second.minuteWindow, second.burstWindow]);
    expect(await redis.hmget(key, 'mc', 'bc', 'bp')).toEqual(['9', '0', '6']);
    // Given back two seconds later: the burst window they were counted in no longer weighs; the minute's count drops.
    const third = await take(key, t + 3 * SECOND, 100, 50, 5);
    await take(key, t + 5 * SECOND, 100, 50, 0, 5, [third.minuteWindow, third.burstWindow]);
    expect(await redis.hget(key, 'mc')).toBe('9');
    // Never below zero, and a give-back for another minute window leaves this one alone.
    await take(key, t + 5 * SECOND, 100, 50, 0, 50, [third.minuteWindow - 1, third.burstWindow]);
    expect(await redis.hget(key, 'mc')).toBe('9');
  });
});
