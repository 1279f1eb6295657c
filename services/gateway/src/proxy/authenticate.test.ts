import { describe, expect, it } from '@jest/globals';
import { RateLimitedError, ServiceUnavailableError, UnauthorizedError } from '@bda/common';
import { Registry } from 'prom-client';
import type { AuthResult } from '../keys/key-store';
import { createGatewayMetrics } from '../metrics';
import { InvalidKeyBudget } from '../rate-limit/invalid-key-budget';
import { limitRequest } from '../rate-limit/limit-request';
import { MemoryLimiter } from '../rate-limit/memory-limiter';
import type { Subject } from '../rate-limit/policy';
import { authenticate } from './authenticate';

const VALID = `bda_${'v'.repeat(43)}`;
const REVOKED = `bda_${'r'.repeat(43)}`;
/** A well-formed key no store holds, different each time. */
let n = 0;
const unknownKey = () => `bda_${String(n++).padStart(43, 'u')}`;

/** A key store that knows one valid and one revoked key, caches what it looked up, and counts its lookups. */
function fakeKeys(opts: { down?: boolean } = {}) {
  const cache = new Map<string, AuthResult>();
  const store = {
    lookups: 0,
    peek(presented: string) {
      if (!presented.startsWith('bda_') || presented.length !== 47) return { status: 'unknown' as const };
      return cache.get(presented) as Exclude<AuthResult, { status: 'unavailable' }> | undefined;
    },
    async verify(presented: string): Promise<AuthResult> {
      store.lookups++;
      if (opts.down) return { status: 'unavailable' };
      const result: AuthResult =
        presented === VALID
          ? { status: 'valid', key: { id: '7', rateLimitPerMinute: null, burstPerSecond: null } }
          : presented === REVOKED
            ? { status: 'revoked' }
            : { status: 'unknown' };
      cache.set(presented, result);
      return result;
    },
  };
  return store;
}

function setup(anonymousPerMinute: number, failuresPerMinute: number, keys = fakeKeys()) {
  const metrics = createGatewayMetrics(new Registry());
  const limiter = new MemoryLimiter();
  const charged: string[] = [];
  const deps = {
    keys,
    invalidKeys: new InvalidKeyBudget(failuresPerMinute),
    policy: { anonymousPerMinute, keyPerMinute: 500, burstPerSecond: 1000 },
    limit: (s: Subject) => {
      charged.push(s.id);
      return limitRequest({ limiter, metrics }, s);
    },
    metrics,
  };
  return { deps, keys, charged };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: unknown) =>
      err instanceof RateLimitedError
        ? 429
        : err instanceof UnauthorizedError
          ? 401
          : err instanceof ServiceUnavailableError
            ? 503
            : String(err),
  );

describe('authenticate', () => {
  it('lets anonymous requests and valid keys through without charging a valid key to the address', async () => {
    const { deps, charged } = setup(5, 5);
    expect(await authenticate(undefined, '1.1.1.1', deps)).toMatchObject({ subject: { id: 'ip:1.1.1.1', tier: 'anonymous' } });
    expect(await authenticate(VALID, '1.1.1.1', deps)).toMatchObject({ subject: { id: 'key:7', tier: 'key' }, keyId: '7' });
    expect(charged).toEqual([]);
  });

  it('stops looking keys up for an address once it has sent its budget of unknown keys', async () => {
    const { deps, keys } = setup(1_000, 3);
    const results: unknown[] = [];
    for (let i = 0; i < 20; i++) results.push(await outcome(authenticate(unknownKey(), '2.2.2.2', deps)));
    expect(results).toEqual([401, 401, 401, ...Array(17).fill(429)]);
    expect(keys.lookups).toBe(3);
    // Not even a valid key is looked up from there until the minute ends; other addresses are not affected.
    expect(await outcome(authenticate(VALID, '2.2.2.2', deps))).toBe(429);
    expect(keys.lookups).toBe(3);
    expect(await outcome(authenticate(VALID, '3.3.3.3', deps))).toBe('ok');
  });

  it('decides the 429 of a spent anonymous limit before any lookup for an address that sent an unknown key', async () => {
    const { deps, keys } = setup(4, 1_000);
    const results: unknown[] = [];
    for (let i = 0; i < 10; i++) results.push(await outcome(authenticate(unknownKey(), '4.4.4.4', deps)));
    expect(results).toEqual([401, 401, 401, 401, 429, 429, 429, 429, 429, 429]);
    // The fifth key was charged before its lookup and refused: four lookups in all.
    expect(keys.lookups).toBe(4);
    // Anonymous requests from there share the spent budget.
    await expect(limitRequestOf(deps, '4.4.4.4')).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('charges a key the cache knows to be invalid without a lookup, and a revoked key without suspecting the address', async () => {
    const { deps, keys, charged } = setup(10, 10);
    expect(await outcome(authenticate('not-a-key', '5.5.5.5', deps))).toBe(401);
    expect(keys.lookups).toBe(0);
    expect(charged).toEqual(['ip:5.5.5.5']);
    expect(await outcome(authenticate(REVOKED, '6.6.6.6', deps))).toBe(401);
    expect(await outcome(authenticate(REVOKED, '6.6.6.6', deps))).toBe(401);
    expect(keys.lookups).toBe(1);
    expect(deps.invalidKeys.suspect('6.6.6.6')).toBe(false);
    // So a valid key from that address is looked up without being charged to it.
    charged.length = 0;
    expect(await outcome(authenticate(VALID, '6.6.6.6', deps))).toBe('ok');
    expect(charged).toEqual([]);
  });

  it('answers 503, not anonymous, when the key store cannot tell', async () => {
    const { deps } = setup(10, 10, fakeKeys({ down: true }));
    expect(await outcome(authenticate(unknownKey(), '7.7.7.7', deps))).toBe(503);
  });
});

function limitRequestOf(deps: ReturnType<typeof setup>['deps'], address: string) {
  return deps.limit({
    id: `ip:${address}`,
    tier: 'anonymous',
    limits: { perMinute: deps.policy.anonymousPerMinute, burst: 1000 },
  });
}
