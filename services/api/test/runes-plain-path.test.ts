/**
 * The `/runes/v1` routes as the api process serves them: on plain node:http ahead of express (`plain-routes.ts`).
 * Each answer must be what the express mounting of the same handlers gives: same bodies, statuses and the headers,
 * access line and metrics the api's middleware gives every answer.
 */
import { createServer, request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import express, { type Express } from 'express';
import request from 'supertest';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { createLogger, createMetricsRegistry, errorMiddleware, notFoundHandler } from '@bda/common';
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
  let viaExpress: Express;
  let closeExpress: () => Promise<void>;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    // On a real port too, for the absolute-form request target only node:http's client sends.
    api = await startApi(testInfra().databaseUrl, { logger: pino({ level: 'info' }, sink), listen: true });
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
    viaExpress = app;
    closeExpress = () => runes.close();
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
      const plain = await request(api.server).get(path);
      const reference = await request(viaExpress).get(path);
      expect({ path, status: plain.status }).toEqual({ path, status: reference.status });
      expect(plain.headers['content-type']).toBe(reference.headers['content-type']);
      expect(plain.text).toBe(reference.text);
    }
  });

  it('gives the headers, access line and metrics of every api answer', async () => {
    lines.length = 0;
    const ok = await request(api.server).get('/runes/v1/blocks/840000/activity').set('x-request-id', 'abc-123');
    expect(ok.status).toBe(200);
    expect(ok.headers['x-request-id']).toBe('abc-123');
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(Number(ok.headers['content-length'])).toBe(Buffer.byteLength(ok.text));
    const bad = await request(api.server).get('/runes/v1/blocks/x/activity').set('x-request-id', 'not ok!');
    expect(bad.status).toBe(400);
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(bad.headers['cache-control']).toBe('no-store');
    expect(lines.filter((l) => l.msg === 'request')).toEqual([
      expect.objectContaining({ reqId: 'abc-123', method: 'GET', path: '/runes/v1/blocks/840000/activity', status: 200 }),
      expect.objectContaining({
        reqId: bad.headers['x-request-id'],
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
    const head = await request(api.server).head('/runes/v1/blocks/840000/activity');
    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    const post = await request(api.server).post('/runes/v1/blocks/840000/activity');
    expect(post.status).toBe(405);
    expect(post.body).toEqual({
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
    try {
      for (let i = 0; i < 2; i++) {
        const res = await request(server).get('/runes/v1/blocks/1/activity');
        expect(res.status).toBe(503);
        expect(res.type).toBe('application/json');
        expect(res.body).toEqual({
          error: 'service_unavailable',
          message: 'the database is unavailable; try again shortly',
        });
      }
    } finally {
      await runesDb.close();
      await db.destroy();
    }
  });
});
