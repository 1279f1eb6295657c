import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { createKeyWithCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request } from './support/http';
import { metricValue } from './support/metrics';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

const ANON_PER_MINUTE = 10;
const POLL_MS = 250;
/** Above the anonymous limit: here the anonymous limit is what stops the flood (the budget has its unit test). */
const FAILED_LOOKUPS_PER_MINUTE = 20;
/** A well-formed key nobody created (a fresh display prefix each time: never in the cache). */
const randomKey = () => `bda_${randomBytes(32).toString('base64url')}`;

/**
 * Issue 18, item 4: invalid keys skipped the rate limit and cost a database lookup each. Client addresses are given
 * through `X-Forwarded-For` (one trusted hop), so that one test file can play several clients.
 */
describe('invalid keys', () => {
  let nodes: StubNode[];
  let api: StubApi;
  let gw: GatewayProcess;
  let validKey: string;
  let otherKey: string;

  const lookups = () => metricValue(gw.adminPort, 'gateway_key_lookups_total');
  const withKey = (keyValue: string, ip: string) =>
    request(gw.port, { path: '/v2/info', headers: { 'x-api-key': keyValue, 'x-forwarded-for': ip } });

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_invalid_keys');
    nodes = await startStubNodes(1);
    api = await new StubApi('api1').start();
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      TRUSTED_PROXY_HOPS: '1',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANON_PER_MINUTE),
      RATE_LIMIT_BURST_PER_SECOND: '1000',
      KEY_LOOKUP_FAILURES_PER_MINUTE: String(FAILED_LOOKUPS_PER_MINUTE),
      KEY_REVOCATION_POLL_MS: String(POLL_MS),
    });
    validKey = (await createKeyWithCli(databaseUrl, ['--owner', 'invalid-keys-1'])).key;
    otherKey = (await createKeyWithCli(databaseUrl, ['--owner', 'invalid-keys-2'])).key;
    // No key changes from here on: once the version poll has seen the last one, nothing drops the key cache again, so
    // a key verified in a test stays cached through it.
    await new Promise((r) => setTimeout(r, POLL_MS * 6));
  });

  afterAll(async () => {
    await gw?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
  });

  it('counts a flood of random keys against the address, answers 429 once its budget is spent, and bounds the lookups', async () => {
    const flooder = '203.0.113.7';
    // A valid key used from the flooding address before the flood (now cached).
    expect((await withKey(validKey, flooder)).status).toBe(200);
    const nodeCallsBefore = nodes[0]!.rpcCount();
    const lookupsBefore = await lookups();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const r = await withKey(randomKey(), flooder);
      statuses.push(r.status);
      expect(r.json().error).toBe(r.status === 401 ? 'unauthorized' : 'rate_limited');
    }
    // Every invalid key spent one of the address's anonymous requests: the first ANON_PER_MINUTE are 401, the rest 429.
    expect(statuses).toEqual([...Array(ANON_PER_MINUTE).fill(401), ...Array(60 - ANON_PER_MINUTE).fill(429)]);
    // The key store went to PostgreSQL at most once per request the address was allowed: the 429s cost no lookup.
    const spent = (await lookups()) - lookupsBefore;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(ANON_PER_MINUTE);
    expect(nodes[0]!.rpcCount()).toBe(nodeCallsBefore);
    // Its anonymous requests are limited too now (they share the budget).
    expect((await request(gw.port, { path: '/v2/info', headers: { 'x-forwarded-for': flooder } })).status).toBe(429);
    // The valid key it verified before still works from there (from the cache: no lookup).
    const keyed = await withKey(validKey, flooder);
    expect(keyed.status).toBe(200);
  });

  it('leaves other addresses alone: their anonymous requests and their keys still work', async () => {
    const other = '203.0.113.8';
    expect((await request(gw.port, { path: '/v2/info', headers: { 'x-forwarded-for': other } })).status).toBe(200);
    const first = await withKey(otherKey, other);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-limit']).not.toBe(String(ANON_PER_MINUTE));
  });

  it('answers 401 for a malformed or an unknown key while the address has budget left, with the anonymous limit headers', async () => {
    const fresh = '203.0.113.9';
    for (const keyValue of ['not-a-key-at-all-0123456789', randomKey()]) {
      const r = await withKey(keyValue, fresh);
      expect(r.status).toBe(401);
      expect(r.json()).toEqual({ error: 'unauthorized', message: 'the API key is not valid' });
      expect(r.headers['ratelimit-limit']).toBe(String(ANON_PER_MINUTE));
    }
    expect(
      (await request(gw.port, { path: '/v2/info', headers: { 'x-forwarded-for': fresh } })).headers['ratelimit-remaining'],
    ).toBe(String(ANON_PER_MINUTE - 3));
  });
});
