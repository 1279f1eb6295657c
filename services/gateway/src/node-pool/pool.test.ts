import { describe, expect, it, jest, afterEach } from '@jest/globals';
import { createLogger } from '@bda/common';
import { Registry } from 'prom-client';
import { createGatewayMetrics } from '../metrics';
import { HealthChecker, type ProbeResult } from './health-checker';
import { UpstreamPool, type Member } from './pool';

const logger = createLogger('test', 'silent');

function pool(
  n = 3,
  opts: Partial<{ ejectAfter: number; ejectBaseMs: number; ejectMaxMs: number; panicThresholdPercent: number }> = {},
) {
  const metrics = createGatewayMetrics(new Registry());
  const p = new UpstreamPool(
    'node',
    Array.from({ length: n }, (_, i) => `http://127.0.0.1:${20000 + i}`),
    { ejectAfter: 3, ejectBaseMs: 1_000, ejectMaxMs: 8_000, maxSockets: 4, ...opts },
    logger,
    metrics,
  );
  return { p, metrics };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('UpstreamPool', () => {
  it('spreads picks over every available member', () => {
    const { p } = pool(3);
    const seen = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const m = p.pick()!;
      seen.set(m.name, (seen.get(m.name) ?? 0) + 1);
    }
    expect(seen.size).toBe(3);
    for (const n of seen.values()) expect(n).toBeGreaterThan(50);
  });

  it('prefers the member with fewer tries in flight', () => {
    const { p } = pool(2);
    p.members[0]!.inFlight = 10;
    for (let i = 0; i < 20; i++) expect(p.pick()).toBe(p.members[1]);
  });

  it('never picks a member already tried for the request', () => {
    const { p } = pool(3);
    const tried = new Set<Member>([p.members[0]!, p.members[1]!]);
    for (let i = 0; i < 10; i++) expect(p.pick(tried)).toBe(p.members[2]);
    tried.add(p.members[2]!);
    expect(p.pick(tried)).toBeUndefined();
  });

  it('ejects after consecutive failures for a time that doubles on repeats', () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'hrtime', 'performance'], now: 1_000_000 });
    const { p } = pool(2);
    const m = p.members[0]!;
    p.reportFailure(m, 'connect_error');
    p.reportFailure(m, 'connect_error');
    expect(m.available(Date.now())).toBe(true);
    p.reportFailure(m, 'connect_error');
    expect(m.available(Date.now())).toBe(false);
    expect(m.ejectedUntil - Date.now()).toBe(1_000);
    jest.advanceTimersByTime(1_000);
    expect(m.available(Date.now())).toBe(true);
    for (let i = 0; i < 3; i++) p.reportFailure(m, 'http_5xx');
    expect(m.ejectedUntil - Date.now()).toBe(2_000);
    jest.advanceTimersByTime(2_000);
    for (let i = 0; i < 3; i++) p.reportFailure(m, 'http_5xx');
    expect(m.ejectedUntil - Date.now()).toBe(4_000);
    jest.advanceTimersByTime(4_000);
    for (let i = 0; i < 3; i++) p.reportFailure(m, 'http_5xx');
    expect(m.ejectedUntil - Date.now()).toBe(8_000);
    jest.advanceTimersByTime(8_000);
    for (let i = 0; i < 3; i++) p.reportFailure(m, 'http_5xx');
    expect(m.ejectedUntil - Date.now()).toBe(8_000);
  });

  it('starts the ejection time over for a member that stayed good long enough', () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'hrtime', 'performance'], now: 1_000_000 });
    const { p } = pool(2);
    const m = p.members[0]!;
    for (let i = 0; i < 3; i++) p.reportFailure(m, 'timeout');
    jest.advanceTimersByTime(1_000 + 8_001);
    for (let i = 0; i < 3; i++) p.reportFailure(m, 'timeout');
    expect(m.ejectedUntil - Date.now()).toBe(1_000);
  });

  it('resets the failure count on a success', () => {
    const { p } = pool(2);
    const m = p.members[0]!;
    p.reportFailure(m, 'timeout');
    p.reportFailure(m, 'timeout');
    p.reportSuccess(m);
    p.reportFailure(m, 'timeout');
    expect(m.available(Date.now())).toBe(true);
  });

  it('never ejects the last available member on passive evidence', () => {
    const { p } = pool(2, { panicThresholdPercent: 0 });
    const [a, b] = p.members as [Member, Member];
    for (let i = 0; i < 3; i++) p.reportFailure(a, 'connect_error');
    expect(a.available(Date.now())).toBe(false);
    for (let i = 0; i < 9; i++) p.reportFailure(b, 'connect_error');
    expect(b.available(Date.now())).toBe(true);
    expect(p.pick()).toBe(b);
    const single = pool(1, { panicThresholdPercent: 0 });
    for (let i = 0; i < 9; i++) single.p.reportFailure(single.p.members[0]!, 'http_5xx');
    expect(single.p.availableCount()).toBe(1);
  });

  it('refuses a passive ejection that would leave fewer members available than the panic threshold', async () => {
    const { p, metrics } = pool(4, { panicThresholdPercent: 50 });
    const [a, b, c] = p.members as [Member, Member, Member];
    for (let i = 0; i < 3; i++) p.reportFailure(a, 'timeout');
    for (let i = 0; i < 3; i++) p.reportFailure(b, 'timeout');
    // Two of four ejected: 50 % left, not below the threshold.
    expect(p.availableCount()).toBe(2);
    for (let i = 0; i < 3; i++) p.reportFailure(c, 'timeout');
    expect(p.availableCount()).toBe(2);
    expect(c.available(Date.now())).toBe(true);
    const text = await metrics.upstreamEjectionsRefused.get();
    expect(text.values.find((v) => v.labels.member === c.name)?.value).toBe(1);
  });

  it('routes to every member the health checks consider up while below the panic threshold', () => {
    const { p } = pool(4, { panicThresholdPercent: 50 });
    const [a, b, c, d] = p.members as [Member, Member, Member, Member];
    for (let i = 0; i < 3; i++) p.reportFailure(a, 'timeout');
    for (let i = 0; i < 3; i++) p.reportFailure(b, 'timeout');
    expect(a.available(Date.now())).toBe(false);
    // The health checks take a third member out: one of four available, below 50 %: panic.
    p.setHealth(c, false, 'down');
    const seen = new Set<Member>();
    for (let i = 0; i < 200; i++) seen.add(p.pick()!);
    expect(seen).toEqual(new Set([a, b, d]));
    // Once nothing is up by the health checks, there is nobody to route to.
    p.setHealth(d, false, 'down');
    p.setHealth(a, false, 'down');
    p.setHealth(b, false, 'down');
    expect(p.pick()).toBeUndefined();
  });
});

describe('HealthChecker', () => {
  function checker(results: () => ProbeResult[], opts: Partial<{ unhealthyThreshold: number; healthyThreshold: number }> = {}) {
    const { p, metrics } = pool(3);
    const probe = async (m: Member) => results()[p.members.indexOf(m)]!;
    const h = new HealthChecker(
      p,
      probe,
      { intervalMs: 1_000, timeoutMs: 100, unhealthyThreshold: 2, healthyThreshold: 2, maxLagBlocks: 5, ...opts },
      logger,
      metrics,
    );
    return { p, h };
  }

  it('decides on the first probe, then needs the thresholds to change its mind', async () => {
    let r: ProbeResult[] = [{ ok: true, tip: 10 }, { ok: false }, { ok: true, tip: 10 }];
    const { p, h } = checker(() => r);
    await h.round();
    expect(p.members.map((m) => m.health)).toEqual(['healthy', 'unhealthy', 'healthy']);
    r = [{ ok: false }, { ok: true, tip: 10 }, { ok: true, tip: 10 }];
    await h.round();
    expect(p.members.map((m) => m.health)).toEqual(['healthy', 'unhealthy', 'healthy']);
    await h.round();
    expect(p.members.map((m) => m.health)).toEqual(['unhealthy', 'healthy', 'healthy']);
    expect(p.availableCount()).toBe(2);
  });

  it('takes out a node lagging behind the best tip and puts it back once it caught up', async () => {
    let r: ProbeResult[] = [
      { ok: true, tip: 100 },
      { ok: true, tip: 94 },
      { ok: true, tip: 100 },
    ];
    const { p, h } = checker(() => r, { unhealthyThreshold: 1, healthyThreshold: 1 });
    await h.round();
    expect(p.members[1]!.health).toBe('unhealthy');
    expect(p.members[1]!.healthReason).toMatch(/lagging 6 blocks/);
    r = [
      { ok: true, tip: 101 },
      { ok: true, tip: 96 },
      { ok: true, tip: 101 },
    ];
    await h.round();
    expect(p.members[1]!.health).toBe('healthy');
  });
});
