import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { createKeyWithCli, runKeysCli } from './support/cli';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { request, waitFor } from './support/http';
import { startStubNodes, StubApi, type StubNode } from './support/stub-node';

describe('API keys', () => {
  let databaseUrl: string;
  let nodes: StubNode[];
  let api: StubApi;
  let gateways: GatewayProcess[];
  /** Every key this suite has seen, valid or not: none may ever appear in a log line. */
  const secrets: string[] = [];
  const cliOutput: string[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'gw_keys');
    nodes = await startStubNodes(3);
    api = await new StubApi('api1').start();
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: `test:keys:${randomBytes(4).toString('hex')}:`,
      NODE_RPC_URLS: nodes.map((n) => n.url).join(','),
      API_URLS: api.url,
      KEY_REVOCATION_POLL_MS: '500',
      LOG_LEVEL: 'debug',
    };
    // Two replicas start together on an empty database (the migrations serialize themselves).
    gateways = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
  });

  afterAll(async () => {
    await Promise.all((gateways ?? []).map((g) => g.stop()));
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await api?.stop();
  });

  it('creates a key that is shown once and stored only as a SHA-256 with its display prefix', async () => {
    const created = await createKeyWithCli(databaseUrl, ['--owner', 'acct-1']);
    secrets.push(created.key);
    expect(created.key).toMatch(/^bda_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));

    const client = new pg.Client(databaseUrl);
    await client.connect();
    try {
      const { rows } = await client.query('select * from gateway.api_keys where id = $1', [created.id]);
      expect(rows).toHaveLength(1);
      const row = rows[0] as Record<string, unknown>;
      expect((row.key_hash as Buffer).equals(createHash('sha256').update(created.key).digest())).toBe(true);
      expect(row.prefix).toBe(created.prefix);
      expect(row.owner).toBe('acct-1');
      expect(JSON.stringify(row)).not.toContain(created.key.slice(12));
    } finally {
      await client.end();
    }

    const list = await runKeysCli(databaseUrl, ['list', '--json']);
    cliOutput.push(list.stdout, list.stderr);
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
    expect(listed.find((k) => k.id === created.id)).toMatchObject({ prefix: created.prefix, owner: 'acct-1', revokedAt: null });
    expect(list.stdout).not.toContain(created.key);
  });

  it('accepts a key on every instance and applies the keyed limit to it', async () => {
    const { key } = await createKeyWithCli(databaseUrl, ['--owner', 'acct-2']);
    secrets.push(key);
    for (const g of gateways) {
      const r = await request(g.port, { path: '/v2/info', headers: { 'x-api-key': key } });
      expect(r.status).toBe(200);
      expect(r.headers['ratelimit-limit']).toBe('500');
      expect(r.headers['ratelimit-policy']).toBe('"minute";q=500;w=60, "burst";q=20;w=1');
    }
  });

  it('applies a custom limit given at creation', async () => {
    const { key } = await createKeyWithCli(databaseUrl, ['--owner', 'contract-1', '--limit', '6000']);
    secrets.push(key);
    const r = await request(gateways[0]!.port, { path: '/v2/pox', headers: { 'x-api-key': key } });
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit-limit']).toBe('6000');
    expect(r.headers['ratelimit-policy']).toBe('"minute";q=6000;w=60, "burst";q=240;w=1');
  });

  it('responds with 401 and a JSON error for an unknown or malformed key', async () => {
    const unknown = `bda_${randomBytes(32).toString('base64url')}`;
    const wrongSecret = `${(await createKeyWithCli(databaseUrl, ['--owner', 'acct-3'])).prefix}${randomBytes(32).toString('base64url').slice(0, 35)}`;
    secrets.push(unknown, wrongSecret, 'not-a-key-at-all-0123456789');
    const before = nodes.reduce((n, s) => n + s.rpcCount(), 0);
    for (const key of [unknown, wrongSecret, 'not-a-key-at-all-0123456789']) {
      for (const g of gateways) {
        const r = await request(g.port, { path: '/v2/info', headers: { 'x-api-key': key } });
        expect(r.status).toBe(401);
        expect(r.headers['content-type']).toMatch(/application\/json/);
        expect(r.json()).toEqual({ error: 'unauthorized', message: 'the API key is not valid' });
      }
    }
    // Refused before reaching any upstream.
    expect(nodes.reduce((n, s) => n + s.rpcCount(), 0)).toBe(before);
  });

  it('responds with 401 when the key is revoked, on every instance within seconds', async () => {
    const created = await createKeyWithCli(databaseUrl, ['--owner', 'acct-4']);
    secrets.push(created.key);
    // Several requests per instance: after the first (a lookup), its processes answer the key from their cached verdict
    // (key-store.ts, no hash per request), which the revocation must end as well.
    for (const g of gateways) {
      for (let i = 0; i < 4; i++) {
        expect((await request(g.port, { path: '/v2/info', headers: { 'x-api-key': created.key } })).status).toBe(200);
      }
    }
    const revoked = await runKeysCli(databaseUrl, ['revoke', created.prefix]);
    cliOutput.push(revoked.stdout, revoked.stderr);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked key ${created.id}`);
    for (const g of gateways) {
      await waitFor(
        async () => (await request(g.port, { path: '/v2/info', headers: { 'x-api-key': created.key } })).status === 401,
        5_000,
        'the revocation to reach the gateway',
      );
      const r = await request(g.port, { path: '/v2/info', headers: { 'x-api-key': created.key } });
      expect(r.json()).toEqual({ error: 'unauthorized', message: 'the API key has been revoked' });
    }
    const list = await runKeysCli(databaseUrl, ['list', '--json', '--all']);
    expect(
      (JSON.parse(list.stdout) as Array<{ id: string; revokedAt: string | null }>).find((k) => k.id === created.id)?.revokedAt,
    ).not.toBeNull();
    const active = await runKeysCli(databaseUrl, ['list', '--json']);
    expect((JSON.parse(active.stdout) as Array<{ id: string }>).some((k) => k.id === created.id)).toBe(false);
  });

  it('revokes by id and refuses an unknown reference', async () => {
    const created = await createKeyWithCli(databaseUrl, ['--owner', 'acct-5']);
    secrets.push(created.key);
    const byId = await runKeysCli(databaseUrl, ['revoke', created.id]);
    expect(byId.code).toBe(0);
    const missing = await runKeysCli(databaseUrl, ['revoke', 'bda_zzzzzzzz']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no active key matches');
    const usage = await runKeysCli(databaseUrl, ['create']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--owner');
  });

  it('does not pass the key upstream', async () => {
    const { key } = await createKeyWithCli(databaseUrl, ['--owner', 'acct-6']);
    secrets.push(key);
    await request(gateways[1]!.port, { path: '/extended/v1/tx/0x01', headers: { 'x-api-key': key } });
    const seen = api.received.at(-1)!;
    expect(seen.path).toBe('/extended/v1/tx/0x01');
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain(key.slice(12));
  });

  it('never writes a key to any log line', async () => {
    // The access log names keys by id (its lines are written asynchronously: wait for them).
    await waitFor(
      () => gateways.flatMap((g) => g.logs()).some((l) => l.msg === 'request' && typeof l.keyId === 'string'),
      10_000,
      'access lines',
    );
    const lines = gateways.flatMap((g) => g.lines);
    expect(lines.length).toBeGreaterThan(10);
    const everything = [...lines, ...cliOutput].join('\n');
    for (const s of secrets) {
      expect(everything).not.toContain(s);
      // Nor the secret part on its own.
      if (s.startsWith('bda_') && s.length > 20) expect(everything).not.toContain(s.slice(12));
    }
  });
});
