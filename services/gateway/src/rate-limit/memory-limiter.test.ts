import { describe, expect, it } from '@jest/globals';
import { MemoryLimiter } from './memory-limiter';
import { MINUTE_MS, type Subject } from './policy';

/**
 * Leases from the in-memory counters (the cluster primary's, ADR 0026), with the same rule as the Redis script: a
 * lease gets `min(want, limit − estimate)` of both windows, counted at once, and unused units go back to the windows
 * they were counted in. Expected figures are worked out here from that rule.
 */
describe('MemoryLimiter leases', () => {
  const clock = (t: number) => {
    const c = { t, now: () => c.t };
    return c;
  };
  const subject: Subject = { id: 'k', tier: 'custom', limits: { perMinute: 10, burst: 6 } };
  const start = 100 * MINUTE_MS + 5_200;

  it('grants up to what both windows allow and refuses with the time until one unit is free', () => {
    const c = clock(start);
    const l = new MemoryLimiter('memory', c.now);
    expect(l.take({ subject, want: 4 })).toMatchObject({
      granted: 4,
      minute: { remaining: 6, retryMs: 0 },
      burst: { remaining: 2, retryMs: 0 },
      minuteWindow: 100,
      burstWindow: Math.floor(start / 1000),
    });
    // The burst window has 2 left.
    expect(l.take({ subject, want: 4 })).toMatchObject({ granted: 2, minute: { remaining: 4 }, burst: { remaining: 0 } });
    c.t += 2;
    const refused = l.take({ subject, want: 4 });
    expect(refused.granted).toBe(0);
    // 798 ms to the next second; then the previous 6 weigh ceil(6 × (1000 − e) / 1000) = 5 once e ≥ 166.7 ms.
    expect(refused.burst.retryMs).toBe(798 + 167);
    // A plain check sees the 6 counted.
    c.t += 3_000;
    expect(l.checkSync(subject).minute.remaining).toBe(10 - 6 - 1);
  });

  it('gives unused units back to the window they were counted in, or to it as the previous window', () => {
    const c = clock(start);
    const l = new MemoryLimiter('memory', c.now);
    const big: Subject = { id: 'b', tier: 'custom', limits: { perMinute: 100, burst: 50 } };
    const lease = l.take({ subject: big, want: 10 });
    const back = { units: 7, minuteWindow: lease.minuteWindow, burstWindow: lease.burstWindow };
    expect(l.take({ subject: big, want: 0, giveBack: back })).toMatchObject({
      granted: 0,
      minute: { remaining: 97 },
      burst: { remaining: 47 },
    });
    // Next second: 10 more, 4 of them back; the burst window's previous count is 10 − 4 = 6.
    c.t += 1_000;
    const second = l.take({ subject: big, want: 10 });
    expect(second.granted).toBe(10);
    c.t += 1_000;
    const after = l.take({
      subject: big,
      want: 1,
      giveBack: { units: 4, minuteWindow: second.minuteWindow, burstWindow: second.burstWindow },
    });
    // Minute: 3 + 10 − 4 = 9 counted before this unit. Burst (200 ms into the second): ceil(6 × 0.8) = 5.
    expect(after).toMatchObject({ granted: 1, minute: { remaining: 100 - 9 - 1 }, burst: { remaining: 50 - 5 - 1 } });
  });
});
