import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { NotFoundError } from '@bda/common';
import { pipelinedRequests as pipelined } from '@bda/test-support';
import { pino } from 'pino';
import { Counter, Histogram, Registry } from 'prom-client';
import { plainRoutes, type GetAnswer, type GetRoute } from './plain-routes';
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

async function serve(
  route: GetRoute | GetRoute[],
  share: boolean,
  dataEpoch?: () => string | undefined,
): Promise<{ server: Server; port: number; shared: Counter }> {
  const registry = new Registry();
  const shared = new Counter({ name: 'shared', help: 'shared', registers: [registry] });
  const duration = new Histogram({ name: 'd', help: 'd', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const listener = plainRoutes(Array.isArray(route) ? route : [route], {
    logger: pino({ level: 'silent' }),
    log: () => {},
    duration,
    shared: share ? shared : undefined,
    dataEpoch,
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

describe('plainRoutes: the data epoch (ADR 0048)', () => {
  const WANT = 'x-bda-want-data-epoch: 1\r\n';

  /** Routes that note when they run: a plain JSON text, an answer with a validator (304 when held), a failure. */
  function epochRoutes(events: string[]): GetRoute[] {
    return [
      {
        path: '/test/text/:id',
        async handle(params) {
          events.push(`route ${params.id}`);
          return JSON.stringify({ id: params.id });
        },
      },
      {
        path: '/test/tagged/:id',
        async handle(params, _query, headers): Promise<GetAnswer> {
          events.push(`route ${params.id}`);
          if (headers['if-none-match'] === 'W/"v1"') return { body: '', status: 304, headers: { ETag: 'W/"v1"' } };
          return { body: '{}', headers: { ETag: 'W/"v1"', 'Cache-Control': 'public, no-cache' } };
        },
      },
      {
        path: '/test/missing/:id',
        async handle(params) {
          events.push(`route ${params.id}`);
          throw new NotFoundError(`no ${params.id}`);
        },
      },
      {
        path: '/test/clock/:id',
        dataEpoch: false,
        async handle(params) {
          events.push(`route ${params.id}`);
          return '{}';
        },
      },
    ];
  }

  /** The epoch label, noting when it is taken. */
  const notedEpoch = (events: string[], epoch: () => string | undefined) => () => {
    events.push('epoch taken');
    return epoch();
  };

  it('takes the epoch before the route runs and sends it with 200s, 304s and errors, only when asked', async () => {
    const events: string[] = [];
    let epoch = 41;
    const { server, port } = await serve(
      epochRoutes(events),
      false,
      notedEpoch(events, () => String(epoch)),
    );
    try {
      const [text] = await pipelined(port, [get('/test/text/a', WANT)]);
      expect(events).toEqual(['epoch taken', 'route a']);
      expect([text!.status, text!.body, text!.headers['x-bda-data-epoch']]).toEqual([200, '{"id":"a"}', '41']);
      expect(text!.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(text!.headers['cache-control']).toBe('no-store');

      epoch = 42;
      events.length = 0;
      const answers = await pipelined(port, [
        get('/test/tagged/b', WANT),
        get('/test/tagged/c', `${WANT}If-None-Match: W/"v1"\r\n`),
        get('/test/missing/d', WANT),
      ]);
      expect(answers.map((a) => [a.status, a.headers['x-bda-data-epoch'], a.headers.etag ?? null])).toEqual([
        [200, '42', 'W/"v1"'],
        [304, '42', 'W/"v1"'],
        [404, '42', null],
      ]);
      expect(answers[0]!.headers['cache-control']).toBe('public, no-cache');
      expect(JSON.parse(answers[2]!.body)).toEqual({ error: 'not_found', message: 'no d' });
      // Each request's label was taken right before its route ran.
      expect(events).toEqual(['epoch taken', 'route b', 'epoch taken', 'route c', 'epoch taken', 'route d']);

      events.length = 0;
      const plain = await pipelined(port, [
        get('/test/text/e'),
        get('/test/text/f', 'x-bda-want-data-epoch: yes\r\n'),
        get('/test/missing/g'),
        get('/test/clock/h', WANT),
      ]);
      expect(plain.map((a) => [a.status, a.headers['x-bda-data-epoch'] ?? null])).toEqual([
        [200, null],
        [200, null],
        [404, null],
        [200, null],
      ]);
      expect(events).toEqual(['route e', 'route f', 'route g', 'route h']);
    } finally {
      server.close();
    }
  });

  it('answers without the epoch when none has been read yet, and never sends it without a reader', async () => {
    const events: string[] = [];
    const failing = await serve(epochRoutes(events), false, () => undefined);
    try {
      const [a] = await pipelined(failing.port, [get('/test/text/a', WANT)]);
      expect([a!.status, a!.body, a!.headers['x-bda-data-epoch'] ?? null]).toEqual([200, '{"id":"a"}', null]);
    } finally {
      failing.server.close();
    }
    const none = await serve(epochRoutes(events), false);
    try {
      const [b] = await pipelined(none.port, [get('/test/text/b', WANT)]);
      expect([b!.status, b!.headers['x-bda-data-epoch'] ?? null]).toEqual([200, null]);
    } finally {
      none.server.close();
    }
  });

  it('shares an answer within a turn only between requests that both asked for the epoch or both did not', async () => {
    const events: string[] = [];
    let reads = 0;
    const { server, port, shared } = await serve(epochRoutes(events), true, () => String(++reads));
    try {
      const answers = await pipelined(port, [
        get('/test/text/a', WANT),
        get('/test/text/a'),
        get('/test/text/a', WANT),
        get('/test/text/a'),
      ]);
      expect(answers.map((a) => [a.status, a.headers['x-bda-data-epoch'] ?? null])).toEqual([
        [200, '1'],
        [200, null],
        [200, '1'],
        [200, null],
      ]);
      expect(events).toEqual(['route a', 'route a']);
      expect(reads).toBe(1);
      expect((await shared.get()).values[0]!.value).toBe(2);
    } finally {
      server.close();
    }
  });
});
