import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { pipelinedRequests as pipelined } from '@bda/test-support';
import { pino } from 'pino';
import { Counter, Histogram, Registry } from 'prom-client';
import { plainRoutes, type GetRoute } from './plain-routes';
import { ReadRoutes } from './read-routes';

/** A route that counts its runs and answers 304 when the client holds its one version (`W/"v1"`). */
function countingRoute(): { route: GetRoute; runs: string[] } {
  const runs: string[] = [];
  return {
    runs,
    route: {
      path: '/test/items/:id',
      async handle(params, query, headers) {
        runs.push(`${params.id}?${String(query.page ?? '')}`);
        if (headers['if-none-match'] === 'W/"v1"') return { body: '', status: 304, headers: { ETag: 'W/"v1"' } };
        return {
          body: JSON.stringify({ id: params.id, page: query.page ?? null, run: runs.length }),
          headers: { ETag: 'W/"v1"' },
        };
      },
    },
  };
}

async function serve(route: GetRoute, share: boolean): Promise<{ server: Server; port: number; shared: Counter }> {
  const registry = new Registry();
  const shared = new Counter({ name: 'shared', help: 'shared', registers: [registry] });
  const duration = new Histogram({ name: 'd', help: 'd', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const listener = plainRoutes([route], {
    logger: pino({ level: 'silent' }),
    log: () => {},
    duration,
    shared: share ? shared : undefined,
  });
  const server = createServer((req, res) => {
    if (!listener(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, shared };
}

const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: test\r\n${extra}`;

describe('plainRoutes: identical requests of one turn', () => {
  it('answers identical pipelined requests with one run of the route, and counts the shared ones', async () => {
    const { route, runs } = countingRoute();
    const { server, port, shared } = await serve(route, true);
    try {
      const answers = await pipelined(port, [get('/test/items/7'), get('/test/items/7'), get('/test/items/7')]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers.map((a) => JSON.parse(a.body))).toEqual(Array(3).fill({ id: '7', page: null, run: 1 }));
      expect(runs).toEqual(['7?']);
      expect((await shared.get()).values[0]!.value).toBe(2);
    } finally {
      server.close();
    }
  });

  it('runs the route again for another target, another query, or another If-None-Match in the same turn', async () => {
    const { route, runs } = countingRoute();
    const { server, port } = await serve(route, true);
    try {
      const answers = await pipelined(port, [
        get('/test/items/7'),
        get('/test/items/8'),
        get('/test/items/7?page=2'),
        get('/test/items/7', 'If-None-Match: W/"v1"\r\n'),
        get('/test/items/7', 'Cache-Control: no-cache\r\n'),
        get('/test/items/7'),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 304, 200, 200]);
      expect(answers.map((a) => a.body)).toEqual([
        JSON.stringify({ id: '7', page: null, run: 1 }),
        JSON.stringify({ id: '8', page: null, run: 2 }),
        JSON.stringify({ id: '7', page: '2', run: 3 }),
        '',
        JSON.stringify({ id: '7', page: null, run: 5 }),
        JSON.stringify({ id: '7', page: null, run: 1 }),
      ]);
      expect(runs).toEqual(['7?', '8?', '7?2', '7?', '7?']);
    } finally {
      server.close();
    }
  });

  it('runs the route for every request when sharing is off, and for requests of later turns', async () => {
    const { route, runs } = countingRoute();
    const { server, port } = await serve(route, false);
    try {
      await pipelined(port, [get('/test/items/7'), get('/test/items/7')]);
      expect(runs).toEqual(['7?', '7?']);
    } finally {
      server.close();
    }
    const shared = countingRoute();
    const on = await serve(shared.route, true);
    try {
      await pipelined(on.port, [get('/test/items/7')]);
      await pipelined(on.port, [get('/test/items/7')]);
      expect(shared.runs).toEqual(['7?', '7?']);
    } finally {
      on.server.close();
    }
  });
});

describe('plainRoutes: a body given as parts', () => {
  it('writes the parts one after the other with their total length in bytes, as JSON, for a pipelined request after them too', async () => {
    const parts = [
      '{"token":',
      '"SP000000000000000000002Q6VF78.café::🙂"',
      ',"balance":"340282366920938463463374607431768211455"}',
    ];
    const routes = new ReadRoutes();
    routes.get('/test/parts/:id', (req, res) => {
      res.type('application/json').send(req.params.id === 'a' ? parts : ['{', '}']);
    });
    const { server, port } = await serve(routes.routes[0]!, false);
    try {
      const answers = await pipelined(port, [get('/test/parts/a'), get('/test/parts/b')]);
      expect(answers.map((a) => [a.status, a.body])).toEqual([
        [200, parts.join('')],
        [200, '{}'],
      ]);
      // Bytes, not characters: the é and the emoji are 2 and 4 bytes.
      expect(Number(answers[0]!.headers['content-length'])).toBe(parts.join('').length + 1 + 2);
      expect(answers[0]!.headers['content-type']).toBe('application/json; charset=utf-8');
    } finally {
      server.close();
    }
  });
});

describe('plainRoutes: a body given as bytes', () => {
  it('writes a handler’s UTF-8 bytes as they are, with their length', async () => {
    const text = '{"hash":"0x00","name":"café-🙂"}';
    const routes = new ReadRoutes();
    routes.get('/test/bytes/:id', (_req, res) => {
      res.type('application/json').send(Buffer.from(text, 'utf8'));
    });
    const { server, port } = await serve(routes.routes[0]!, false);
    try {
      const answers = await pipelined(port, [get('/test/bytes/a'), get('/test/bytes/b')]);
      expect(answers.map((a) => [a.status, a.body])).toEqual([
        [200, text],
        [200, text],
      ]);
      expect(Number(answers[0]!.headers['content-length'])).toBe(text.length + 1 + 2);
    } finally {
      server.close();
    }
  });
});
