/**
 * The `/runes/v1` routes as the api process serves them: on plain node:http ahead of express (`plain-routes.ts`).
 * Each answer must be what the express mounting of the same handlers gives: same bodies, statuses and the headers,
 * access line and metrics the api's middleware gives every answer.
 */
import { createServer, request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeServer, createLogger, createMetricsRegistry, errorMiddleware, listen, notFoundHandler } from '@bda/common';
import { createDb } from '@bda/db';
import { GENESIS_RUNE } from '@bda/runes';
import { buildRequestListener } from '../src/build-app';
import { createRunesDb, runesRouter } from '../src/runes';
import { seedLedger } from './runes-seed';
import { DEFAULT_PAGE_LIMITS } from '../src/env';
import { methodNotAllowed, namedDecodeErrors } from '../src/method-not-allowed';
import { bundleOpenApi, loadSchemaSources } from '../src/openapi';
import { pathTemplates } from '../src/path-templates';
import { startApi, type ApiHarness } from './support/api-harness';

const H0 = `0x${'b0'.repeat(32)}`;
const TX = `0x${'c1'.repeat(32)}`;

describe('/runes/v1 on the plain path', () => {
  let api: ApiHarness;
  const lines: Array<Record<string, unknown>> = [];
  let viaExpress: string;
  let closeExpress: () => Promise<void>;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    api = await startApi(inject('databaseUrl'), { logger: pino({ level: 'info' }, sink) });
    await seedLedger(
      api.db,
      [
        {
          number: 0,
          block: GENESIS_RUNE.block,
          tx: GENESIS_RUNE.tx,
          rune: GENESIS_RUNE.rune,
          spacers: GENESIS_RUNE.spacers,
          symbol: GENESIS_RUNE.symbol,
          terms: GENESIS_RUNE.terms,
          turbo: true,
          etchingTxId: null,
          etchingBlockHash: null,
          time: 0,
        },
      ],
      [
        {
          height: 840_000,
          hash: H0,
          time: 1_713_571_767,
          rows: [
            { txIndex: 1, txId: TX, rune: 0, operation: 'mint', address: null, receiver: null, amount: 5n, vout: null },
            { txIndex: 1, txId: TX, rune: 0, operation: 'receive', address: 'bc1qrecv', receiver: null, amount: 5n, vout: 0 },
          ],
        },
      ],
      [],
    );
    // The same handlers mounted on express, for comparison.
    const app = express();
    app.set('query parser', 'simple');
    const runes = createRunesDb({ connectionString: api.databaseUrl, max: 2 });
    app.use(runesRouter({ db: runes }));
    // As the api app ends (build-app.ts): 405 for documented paths, undecodable parameters named.
    const templates = pathTemplates(bundleOpenApi(loadSchemaSources(), DEFAULT_PAGE_LIMITS));
    app.use(methodNotAllowed(templates));
    app.use(notFoundHandler());
    app.use(namedDecodeErrors(templates));
    app.use(errorMiddleware(createLogger('t', 'silent')));
    const { server, port } = await listen(app, 0, '127.0.0.1');
    viaExpress = `http://127.0.0.1:${port}`;
    closeExpress = async () => {
      await closeServer(server);
      await runes.close();
    };
  });
  afterAll(async () => {
    await closeExpress?.();
    await api?.close();
  });

  it('answers like the express mounting of the same routes, odd spellings included', async () => {
    for (const path of [
      '/runes/v1/blocks/840000/activity',
      '/runes/v1/blocks/840000/activity/',
      '/RUNES/V1/Blocks/840000/Activity?limit=1&offset=1',
      `/runes/v1/blocks/${H0.slice(2).toUpperCase()}/activity`,
      '/runes/v1/blocks/%38%34%30000/activity',
      '/runes/v1/blocks/%zz/activity',
      '/runes/v1/blocks/840001/activity',
      '/runes/v1/blocks/840000/activity?limit=0',
      '/runes/v1/blocks/840000/activity?limit=1&limit=2',
      '/runes/v1/blocks/840000/activity?operation=receive,mint',
      '/runes/v1',
      '/runes/v1/etchings/0/activity',
      '/runes/v1/blocks//activity',
    ]) {
      const plain = await fetch(api.baseUrl + path);
      const reference = await fetch(viaExpress + path);
      expect({ path, status: plain.status }).toEqual({ path, status: reference.status });
      expect(plain.headers.get('content-type')).toBe(reference.headers.get('content-type'));
      expect(await plain.text()).toBe(await reference.text());
    }
  });

  it('gives the headers, access line and metrics of every api answer', async () => {
    lines.length = 0;
    const ok = await fetch(`${api.baseUrl}/runes/v1/blocks/840000/activity`, { headers: { 'x-request-id': 'abc-123' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('abc-123');
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(Number(ok.headers.get('content-length'))).toBe(Buffer.byteLength(await ok.text()));
    const bad = await fetch(`${api.baseUrl}/runes/v1/blocks/x/activity`, { headers: { 'x-request-id': 'not ok!' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(bad.headers.get('cache-control')).toBe('no-store');
    expect(lines.filter((l) => l.msg === 'request')).toEqual([
      expect.objectContaining({ reqId: 'abc-123', method: 'GET', path: '/runes/v1/blocks/840000/activity', status: 200 }),
      expect.objectContaining({
        reqId: bad.headers.get('x-request-id'),
        method: 'GET',
        path: '/runes/v1/blocks/x/activity',
        status: 400,
      }),
    ]);
    const metrics = (await api.get('/metrics')).text;
    expect(metrics).toMatch(
      /api_http_request_duration_seconds_count\{[^}]*method="GET",route="\/runes\/v1\/blocks\/:block\/activity",status="200"\}/,
    );
    expect(metrics).toMatch(/route="\/runes\/v1\/blocks\/:block\/activity",status="400"\}/);
  });

  it('answers HEAD without a body and leaves other methods to express', async () => {
    const head = await fetch(`${api.baseUrl}/runes/v1/blocks/840000/activity`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${api.baseUrl}/runes/v1/blocks/840000/activity`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(await post.json()).toEqual({
      error: 'method_not_allowed',
      message: 'POST is not allowed on /runes/v1/blocks/840000/activity; allowed: GET, HEAD',
    });
    // An absolute-form target is not the plain path's: express answers it as before.
    const absolute = await new Promise<number>((resolve, reject) => {
      const u = new URL(api.baseUrl);
      const req = httpRequest(
        { host: u.hostname, port: u.port, path: `${api.baseUrl}/runes/v1/blocks/840000/activity` },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(absolute).toBe(200);
  });
});

describe('/runes/v1 on the plain path when the database is unreachable', () => {
  it('answers 503 JSON and keeps serving', async () => {
    const url = 'postgres://postgres:postgres@127.0.0.1:1/none';
    const db = createDb({ connectionString: url });
    const runesDb = createRunesDb({ connectionString: url, max: 1 });
    const server = createServer(
      buildRequestListener({
        db,
        runesDb,
        logger: createLogger('t', 'silent'),
        metrics: createMetricsRegistry('t'),
        isShuttingDown: () => false,
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/runes/v1/blocks/1/activity`);
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({
          error: 'service_unavailable',
          message: 'the database is unavailable; try again shortly',
        });
      }
    } finally {
      await closeServer(server);
      await runesDb.close();
      await db.destroy();
    }
  });
});
