import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, errorMiddleware } from '@bda/common';
import type { AppliedProgress } from './record-applier';
import { progressRoute } from './progress-route';

describe('GET /progress', () => {
  let server: Server;
  let base: string;
  const asked: Array<[string, number, number]> = [];
  const progress: AppliedProgress = { position: 41n, receivedAt: '2026-11-24T17:00:00.250Z' };

  beforeAll(async () => {
    const app = express();
    app.get(
      '/progress',
      progressRoute({
        applierOf: (topic) => (topic === 'stacks.node-events' || topic === 'bitcoin.blocks' ? ({} as never) : undefined),
        progress: async (topic, coversMs, waitMs) => {
          asked.push([topic, coversMs, waitMs]);
          if (waitMs === 4_321) throw new Error('connection refused');
          return progress;
        },
      }),
    );
    app.use(errorMiddleware(createLogger('indexer', 'silent')));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/progress`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = async (query: string) => {
    const res = await fetch(`${base}?${query}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('says how far the topic is applied and whether that covers the time asked about', async () => {
    expect(await get('topic=stacks.node-events&covers=2026-11-24T17:00:00.250Z&wait_ms=250')).toEqual({
      status: 200,
      body: { topic: 'stacks.node-events', position: '41', received_at: '2026-11-24T17:00:00.250Z', covered: true },
    });
    expect(asked.at(-1)).toEqual(['stacks.node-events', Date.parse('2026-11-24T17:00:00.250Z'), 250]);
    const later = Date.parse('2026-11-24T17:00:00.251Z');
    expect((await get(`topic=bitcoin.blocks&covers=${later}`)).body).toMatchObject({ topic: 'bitcoin.blocks', covered: false });
    expect(asked.at(-1)).toEqual(['bitcoin.blocks', later, 0]);
  });

  it('answers the progress as it stands without covers, and never covered', async () => {
    expect((await get('topic=stacks.node-events')).body).toMatchObject({ position: '41', covered: false });
    expect(asked.at(-1)).toEqual(['stacks.node-events', Infinity, 0]);
  });

  it.each([
    ['', /topic is required/],
    ['topic=stacks.other', /topic must be stacks.node-events or bitcoin.blocks/],
    ['topic=stacks.node-events&topic=bitcoin.blocks', /topic must be given once/],
    ['topic=stacks.node-events&covers=yesterday', /covers must be an ISO 8601 time/],
    ['topic=stacks.node-events&covers=2026-11-24T17:00:00', /covers must be an ISO 8601 time with its zone/],
    ['topic=stacks.node-events&wait_ms=-1', /wait_ms must be an integer from 0 to 5000/],
    ['topic=stacks.node-events&wait_ms=5001', /wait_ms must be an integer from 0 to 5000/],
    ['topic=stacks.node-events&wait_ms=1e3', /wait_ms must be an integer/],
  ])('responds with 400 naming the problem for %s', async (query, message) => {
    const { status, body } = await get(query);
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'invalid_request', message: expect.stringMatching(message) });
  });

  it('responds with 503 when the position cannot be read', async () => {
    const { status, body } = await get('topic=stacks.node-events&wait_ms=4321');
    expect(status).toBe(503);
    expect(body.message).toMatch(/cannot read the position: connection refused/);
  });
});
