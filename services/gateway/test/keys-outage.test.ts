import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, RestartablePostgres, testInfra } from '@bda/test-support';
import { createKeyWithCli, runKeysCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request, waitFor, type Reply } from './support/http';
import { metricValue } from './support/metrics';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

/**
 * The gateway's own PostgreSQL (the key store) is stopped while the gateway runs, then started again on the same
 * data directory and port. The key store's design (src/keys/key-store.ts): rows are cached per display prefix for
 * KEY_CACHE_TTL_MS; when PostgreSQL fails, a cached entry keeps serving even once expired (stale); a key whose prefix
 * was never cached is `unavailable` and answered 503, never anonymous. A version poll (KEY_REVOCATION_POLL_MS) drops
 * the cache when the keys change, so revocations propagate once the database is back.
 *
 * The shared test server cannot be stopped (other files use it), so this file runs a PostgreSQL of its own.
 */

const ROOT = join(import.meta.dirname, '../../..');
/** Short, so that the entry of the key verified before the outage has expired when it is presented during it. */
const CACHE_TTL_MS = 1_500;
const POLL_MS = 250;
const ANON_PER_MINUTE = 40;
const KEY_PER_MINUTE = 400;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A well-formed key no database has ever held. */
const randomKey = () => `bda_${randomBytes(32).toString('base64url')}`;

describe('API keys while the key database is down', () => {
  let pgServer: RestartablePostgres;
  let databaseUrl: string;
  let nodes: StubNode[];
  let api: StubApi;
  let gw: GatewayProcess;
  /** Every exit of the gateway process (there must be none until afterAll stops it). */
  const exits: string[] = [];
  /** Verified (and cached) before the outage. */
  let cachedKey: string;
  /** Created before the outage but never presented: the gateway has nothing cached for it. */
  let unseenKey: string;
  /** Revoked before the outage; the gateway saw the revocation. */
  let revokedKey: string;
  /** When the gateway last verified `cachedKey` before the outage (its cache entry expires CACHE_TTL_MS later). */
  let cachedAt = 0;
  /** How many output lines the gateway had written when its key version poll recovered. */
  let linesAtRecovery = -1;
  let stopping = false;

  const withKey = (key: string, path = '/v2/pox', timeoutMs = 20_000): Promise<Reply> =>
    request(gw.port, { path, headers: { 'x-api-key': key }, timeoutMs });
  const anonymous = (path = '/v2/pox'): Promise<Reply> => request(gw.port, { path, timeoutMs: 20_000 });
  const lookups = () => metricValue(gw.adminPort, 'gateway_key_lookups_total');
  const upstreamCount = () => nodes.reduce((n, s) => n + s.rpcCount(), 0) + api.received.length;
  const alive = () => gw.child.exitCode === null && gw.child.signalCode === null;

  beforeAll(async () => {
    pgServer = await RestartablePostgres.create(
      join(ROOT, '.tmp', `gw-keys-outage-${process.pid}-${randomBytes(3).toString('hex')}`),
      { shared_buffers: '32MB', max_connections: '50' },
    );
    databaseUrl = await createTestDatabase(pgServer.url, 'gw_keys_outage');
    nodes = await startStubNodes(2);
    api = await new StubApi('api1').start();
    gw = await startGatewayProcess({
      DATABASE_URL: databaseUrl,
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: `test:keys-outage:${randomBytes(4).toString('hex')}:`,
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      KEY_CACHE_TTL_MS: String(CACHE_TTL_MS),
      KEY_REVOCATION_POLL_MS: String(POLL_MS),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANON_PER_MINUTE),
      RATE_LIMIT_KEY_PER_MINUTE: String(KEY_PER_MINUTE),
      RATE_LIMIT_BURST_PER_SECOND: '100',
    });
    gw.child.once('exit', (code, signal) => {
      if (!stopping) exits.push(`exited with ${code ?? signal}:\n${gw.lines.slice(-30).join('\n')}`);
    });

    const [a, b, c] = await Promise.all([
      createKeyWithCli(databaseUrl, ['--owner', 'outage-cached']),
      createKeyWithCli(databaseUrl, ['--owner', 'outage-unseen']),
      createKeyWithCli(databaseUrl, ['--owner', 'outage-revoked']),
    ]);
    cachedKey = a.key;
    unseenKey = b.key;
    revokedKey = c.key;
    const revoked = await runKeysCli(databaseUrl, ['revoke', c.id]);
    if (revoked.code !== 0) throw new Error(`keys revoke failed: ${revoked.stderr}`);

    // No key changes from here on: once the version poll has seen the last one (a few poll periods), nothing drops the
    // cache again, so what the gateway verifies now stays cached through the outage.
    await sleep(POLL_MS * 6);
    const ok = await withKey(cachedKey);
    expect(ok.status).toBe(200);
    const gone = await withKey(revokedKey);
    expect(gone.status).toBe(401);
    expect(gone.json()).toEqual({ error: 'unauthorized', message: 'the API key has been revoked' });
    // A second presentation is answered from the cache (no lookup): the entry is there.
    const before = await lookups();
    expect((await withKey(cachedKey)).status).toBe(200);
    cachedAt = Date.now();
    expect(await lookups()).toBe(before);

    await pgServer.stop();
    // The gateway notices (its version poll logs the failure).
    await waitFor(
      () => gw.logs().some((l) => l.msg === 'key version poll failed'),
      15_000,
      'the gateway to notice that its database is down',
    );
  });

  afterAll(async () => {
    stopping = true;
    await gw?.stop();
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
    await pgServer?.remove();
  });

  it('answers 503 JSON, never anonymous, for an unknown key while its database is down', async () => {
    const before = upstreamCount();
    // A real key the gateway never saw, and well-formed keys nobody created, on node and api routes, all at once.
    const attempts = [
      withKey(unseenKey, '/v2/pox'),
      withKey(unseenKey, '/extended/v1/tx/0x01'),
      ...Array.from({ length: 10 }, (_, i) => withKey(randomKey(), i % 2 ? '/v2/pox' : '/extended/v1/block')),
    ];
    const replies = await Promise.all(attempts);
    for (const r of replies) {
      expect(r.status).toBe(503);
      expect(r.headers['content-type']).toMatch(/application\/json/);
      expect(r.json()).toEqual({ error: 'service_unavailable', message: 'the API key could not be verified, try again' });
      // Not counted as an anonymous (or any) client: refused before the limiter.
      expect(r.headers['ratelimit-limit']).toBeUndefined();
    }
    // Nothing reached an upstream.
    expect(upstreamCount()).toBe(before);
    // The Rosetta form of the same answer is retriable.
    const rosetta = await request(gw.port, {
      method: 'POST',
      path: '/rosetta/v1/network/list',
      headers: { 'x-api-key': randomKey(), 'content-type': 'application/json' },
      body: '{}',
      timeoutMs: 20_000,
    });
    expect(rosetta.status).toBe(503);
    expect(rosetta.json()).toMatchObject({ code: 503, message: 'service_unavailable', retriable: true });
    expect(upstreamCount()).toBe(before);
  });

  it('still refuses a malformed key with 401 while its database is down (no lookup is needed)', async () => {
    const r = await withKey('not-a-key-at-all-0123456789');
    expect(r.status).toBe(401);
    expect(r.json()).toEqual({ error: 'unauthorized', message: 'the API key is not valid' });
  });

  it('keeps serving a key it verified before, with the keyed limit, once its cache entry has expired', async () => {
    // The entry has expired: the store asks PostgreSQL, fails, and serves the stale rows.
    const wait = cachedAt + CACHE_TTL_MS + 250 - Date.now();
    if (wait > 0) await sleep(wait);
    const before = await lookups();
    const seenBefore = api.received.length;
    const r = await withKey(cachedKey, '/extended/v1/tx/0x02');
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit-limit']).toBe(String(KEY_PER_MINUTE));
    expect(r.json()).toMatchObject({ api: 'api1', url: '/extended/v1/tx/0x02' });
    expect(api.received.length).toBe(seenBefore + 1);
    expect(api.received.at(-1)!.headers['x-api-key']).toBeUndefined();
    // It did try the database (the entry was stale, not fresh).
    expect(await lookups()).toBeGreaterThan(before);
    const node = await withKey(cachedKey, '/v2/pox');
    expect(node.status).toBe(200);
    expect(node.headers['ratelimit-limit']).toBe(String(KEY_PER_MINUTE));
  });

  it('keeps refusing a key it saw revoked before the outage', async () => {
    const r = await withKey(revokedKey);
    expect(r.status).toBe(401);
    expect(r.json()).toEqual({ error: 'unauthorized', message: 'the API key has been revoked' });
  });

  it('serves anonymous requests with the anonymous limit while its database is down', async () => {
    for (const path of ['/v2/pox', '/extended/v1/block']) {
      const r = await anonymous(path);
      expect(r.status).toBe(200);
      expect(r.headers['ratelimit-limit']).toBe(String(ANON_PER_MINUTE));
    }
  });

  it('answers /healthz and /readyz with JSON while its database is down (readiness does not depend on it)', async () => {
    const health = await request(gw.port, { path: '/healthz', timeoutMs: 20_000 });
    expect(health.status).toBe(200);
    expect(health.headers['content-type']).toMatch(/application\/json/);
    expect(health.json()).toEqual({ status: 'ok' });
    // Recorded behaviour: readiness follows the upstream pools only, so a gateway without its key database stays in
    // rotation (anonymous and cached keys are still served; unseen keys get 503).
    const ready = await request(gw.port, { path: '/readyz', timeoutMs: 20_000 });
    expect(ready.headers['content-type']).toMatch(/application\/json/);
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('stays alive through the outage', async () => {
    expect(exits).toEqual([]);
    expect(alive()).toBe(true);
    // Still answering while the database is down (and it is still down: an unseen key still gets 503).
    expect((await withKey(randomKey())).status).toBe(503);
    expect((await anonymous()).status).toBe(200);
    expect(alive()).toBe(true);
  });

  it('verifies keys again once its database is back', async () => {
    await pgServer.start();
    await waitFor(() => gw.logs().some((l) => l.msg === 'key version poll recovered'), 20_000, 'the key version poll to recover');
    linesAtRecovery = gw.lines.length;
    // Once the gateway reads its database again, every kind of key gets its real answer, at the first try.
    const unseen = await withKey(unseenKey);
    expect(unseen.status).toBe(200);
    expect(unseen.headers['ratelimit-limit']).toBe(String(KEY_PER_MINUTE));
    const unknown = await withKey(randomKey());
    expect(unknown.status).toBe(401);
    expect(unknown.json()).toEqual({ error: 'unauthorized', message: 'the API key is not valid' });
    expect((await withKey(cachedKey)).status).toBe(200);
    expect((await withKey(revokedKey)).status).toBe(401);

    // A key created after the outage works.
    const fresh = await createKeyWithCli(databaseUrl, ['--owner', 'outage-after', '--limit', '900']);
    const r = await withKey(fresh.key);
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit-limit']).toBe('900');
  });

  it('stops serving a key revoked after its database came back (served stale during the outage)', async () => {
    const revoked = await runKeysCli(databaseUrl, ['revoke', cachedKey.slice(0, 12)]);
    expect(revoked.code).toBe(0);
    await waitFor(async () => (await withKey(cachedKey)).status === 401, 10_000, 'the revocation to reach the gateway');
    const r = await withKey(cachedKey);
    expect(r.status).toBe(401);
    expect(r.json()).toEqual({ error: 'unauthorized', message: 'the API key has been revoked' });
  });

  it('leaves no error behind', async () => {
    const unavailableBefore = await metricValue(gw.adminPort, 'gateway_auth_total', { outcome: 'unavailable' });
    for (let i = 0; i < 5; i++) {
      expect((await withKey(unseenKey, i % 2 ? '/v2/pox' : '/extended/v1/block')).status).toBe(200);
      expect((await anonymous(i % 2 ? '/v2/pox' : '/extended/v1/block')).status).toBe(200);
    }
    expect(await metricValue(gw.adminPort, 'gateway_auth_total', { outcome: 'unavailable' })).toBe(unavailableBefore);
    expect(exits).toEqual([]);
    expect(alive()).toBe(true);
    expect((await request(gw.port, { path: '/readyz' })).status).toBe(200);

    // Over the whole run: no 500, no handler failure, nothing fatal (access lines are written asynchronously).
    await waitFor(() => gw.logs().filter((l) => l.msg === 'request').length >= 20, 10_000, 'access lines');
    const logs = gw.logs();
    expect(logs.filter((l) => l.msg === 'request' && l.status === 500)).toEqual([]);
    expect(logs.filter((l) => l.msg === 'gateway handler failed' || (l.level as number) >= 60)).toEqual([]);
    expect(gw.lines.filter((l) => /unhandled|uncaught/i.test(l))).toEqual([]);
    // Nothing but JSON lines, through the outage too: knex's own warnings (one per failed connection attempt) go
    // through the gateway's logger.
    expect(linesAtRecovery).toBeGreaterThan(0);
    expect(gw.lines.filter((l) => !l.startsWith('{'))).toEqual([]);
  });
});
