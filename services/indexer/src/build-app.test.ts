import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { buildApp } from './build-app';

describe("the indexer's HTTP app", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = buildApp({
      indexer: {
        isRunning: true,
        status: async () => ({ 'stacks.node-events': { applied: '4', head: '6', lag: '2' } }),
        applierOf: () => undefined,
        progress: () => Promise.reject(new Error('not asked')),
      },
      logger: createLogger('indexer', 'silent'),
      metrics: createMetricsRegistry('indexer'),
      isReady: () => true,
      isShuttingDown: () => false,
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers without naming its framework (no X-Powered-By)', async () => {
    for (const path of ['/status', '/healthz', '/metrics', '/nope', '/progress?topic=nope']) {
      const res = await fetch(`${base}${path}`);
      await res.arrayBuffer();
      expect([path, res.headers.get('x-powered-by')]).toEqual([path, null]);
    }
  });

  it('serves the positions on /status and 404 JSON elsewhere', async () => {
    const status = await fetch(`${base}/status`);
    expect(await status.json()).toEqual({
      running: true,
      topics: { 'stacks.node-events': { applied: '4', head: '6', lag: '2' } },
    });
    const nope = await fetch(`${base}/nope`);
    expect(nope.status).toBe(404);
    expect(await nope.json()).toEqual({ error: 'not_found', message: 'no route for GET /nope' });
  });
});
