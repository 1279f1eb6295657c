import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import { BlockRowBuilder } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertBlocks, seedCanonicalChain, setChainTip } from './support/seed';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl, { listen: true });
});

afterAll(async () => {
  await api?.close();
});

describe('GET /extended', () => {
  it('reports ready with a null chain tip before anything is indexed', async () => {
    const res = await api.get('/extended');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      server_version: expect.stringMatching(/^bda-api \d+\.\d+\.\d+/),
      status: 'ready',
      pox_v1_unlock_height: null,
      pox_v2_unlock_height: null,
      pox_v3_unlock_height: null,
      chain_tip: null,
    });
  });

  it('reports the canonical tip once blocks are indexed', async () => {
    const blocks = await seedCanonicalChain(api.db, 1, 3);
    const tip = blocks[2]!;
    const res = await api.get('/extended');
    expect(res.status).toBe(200);
    expect(res.body.chain_tip).toEqual({
      block_height: 3,
      block_hash: tip.block_hash,
      index_block_hash: tip.index_block_hash,
      burn_block_height: tip.burn_block_height,
    });
  });

  it('includes the microblock fields only when a microblock is built on the tip', async () => {
    const tip = new BlockRowBuilder().height(3).build();
    await setChainTip(api.db, tip, 3, { hash: '0x' + 'ab'.repeat(32), sequence: 2 });
    const res = await api.get('/extended');
    expect(res.body.chain_tip).toMatchObject({ microblock_hash: '0x' + 'ab'.repeat(32), microblock_sequence: 2 });
    await setChainTip(api.db, tip, 3);
  });

  it('answers the alias /extended/v1/status and a trailing slash the same way', async () => {
    const a = await api.get('/extended');
    const b = await api.get('/extended/v1/status');
    const c = await api.get('/extended/');
    expect(b.body).toEqual(a.body);
    expect(c.body).toEqual(a.body);
  });

  it('carries the tip as ETag and answers 304 while the tip has not moved', async () => {
    const first = await api.get('/extended');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"0x[0-9a-f]{64}"$/);
    expect(first.headers.get('cache-control')).toBe('public, no-cache');
    // fetch adds `cache-control: no-cache` (a forced reload) to conditional requests unless one is given.
    const again = await api.get('/extended', { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);

    const next = new BlockRowBuilder().height(4).build();
    await insertBlocks(api.db, [next]);
    await setChainTip(api.db, next, 4);
    const moved = await api.get('/extended', { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
    expect(moved.status).toBe(200);
    expect(moved.headers.get('etag')).not.toBe(etag);
  });

  it('reports the PoX unlock heights the node sent with the tip block, and null for a tip without them', async () => {
    const withHeights = new BlockRowBuilder()
      .height(20)
      .with({ pox_v1_unlock_height: 104, pox_v2_unlock_height: 106, pox_v3_unlock_height: 109 })
      .build();
    const without = new BlockRowBuilder().height(21).build();
    await insertBlocks(api.db, [withHeights, without]);
    await setChainTip(api.db, withHeights, 20);
    expect((await api.get('/extended')).body).toMatchObject({
      pox_v1_unlock_height: 104,
      pox_v2_unlock_height: 106,
      pox_v3_unlock_height: 109,
      chain_tip: { block_height: 20 },
    });
    await setChainTip(api.db, without, 21);
    expect((await api.get('/extended')).body).toMatchObject({
      pox_v1_unlock_height: null,
      pox_v2_unlock_height: null,
      pox_v3_unlock_height: null,
      chain_tip: { block_height: 21 },
    });
  });
});

describe('unknown routes and methods', () => {
  it('responds with 404 JSON naming the route', async () => {
    const res = await api.get('/extended/v1/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'no route for GET /extended/v1/nope' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps serving after a burst of malformed requests', async () => {
    const bad = ['/extended/v2/blocks?limit=abc', '/extended/v1/tx/xyz', '/extended/v1/address/nope/transactions', '/%E0%A4%A'];
    for (const path of bad) {
      const res = await api.get(path);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    expect((await api.get('/extended')).status).toBe(200);
  });
});

describe('operations endpoints', () => {
  it('serves the bundled OpenAPI document', async () => {
    const res = await api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/extended',
        '/extended/v2/blocks',
        '/extended/v2/blocks/{height_or_hash}',
        '/extended/v1/tx/{tx_id}',
        '/extended/v1/tx/mempool',
        '/extended/v1/address/{principal}/transactions',
      ]),
    );
    expect(res.text).not.toContain('.schema.json');
    expect(res.body.components.schemas.NakamotoBlock).toBeDefined();
  });

  it('serves a self-contained docs page listing every endpoint', async () => {
    const res = await api.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('/extended/v2/blocks/{height_or_hash}');
    expect(res.text).toContain('/extended/v1/address/{principal}/transactions');
    expect(res.text).not.toMatch(/<script|https?:\/\/(?!schemas)/);
  });

  it('is ready once the database answers and not ready once shutting down', async () => {
    expect((await api.get('/healthz')).status).toBe(200);
    expect((await api.get('/readyz')).body).toEqual({ status: 'ready' });
    api.setShuttingDown(true);
    const res = await api.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'shutting_down' });
    api.setShuttingDown(false);
  });

  it('exposes request metrics by route template', async () => {
    await api.get('/extended/v2/blocks/1');
    const res = await api.get('/metrics');
    expect(res.text).toMatch(
      /api_http_request_duration_seconds_count\{[^}]*method="GET",route="\/extended\/v2\/blocks\/:height_or_hash",status="200"\}/,
    );
  });
});

describe('when the database is unreachable', () => {
  it('answers 503 JSON to chain reads and to readiness, and keeps serving', async () => {
    const { buildApp } = await import('../src/build-app');
    const { createDb } = await import('@bda/db');
    const { createLogger, createMetricsRegistry, listen, closeServer } = await import('@bda/common');
    const { schemaValidator } = await import('./support/api-harness');
    const db = createDb({ connectionString: 'postgres://postgres:postgres@127.0.0.1:1/none' });
    const app = buildApp({
      db,
      logger: createLogger('t', 'silent'),
      metrics: createMetricsRegistry('t'),
      isShuttingDown: () => false,
    });
    const { server, port } = await listen(app, 0, '127.0.0.1');
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/extended/v2/blocks`);
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body).toEqual({ error: 'service_unavailable', message: 'the database is unavailable; try again shortly' });
        schemaValidator.validateResponse('/extended/v2/blocks', 'get', 503, body);
      }
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);
    } finally {
      await closeServer(server);
      await db.destroy();
    }
  });
});

describe('a method a path does not take', () => {
  it('answers 405 with Allow naming the methods the path takes, on express and plain routes alike', async () => {
    for (const path of ['/extended', '/extended/v1/tx/0x' + 'ab'.repeat(32), '/runes/v1/etchings']) {
      const res = await fetch(`${api.baseUrl}${path}`, { method: 'POST', body: '{}' });
      expectMessage(path, () => expect(res.status).toBe(405));
      expectMessage(path, () => expect(res.headers.get('allow')).toBe('GET, HEAD'));
      expect(await res.json()).toEqual({
        error: 'method_not_allowed',
        message: `POST is not allowed on ${path}; allowed: GET, HEAD`,
      });
    }
  });

  it('still answers 404 for a path nobody serves', async () => {
    const res = await fetch(`${api.baseUrl}/extended/v9/nothing`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('not_found');
  });
});
