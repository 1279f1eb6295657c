import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { UpstreamConnections, type UpstreamHandler, type UpstreamRequest } from './upstream-connections';

/**
 * A member speaking raw HTTP/1.1: `answer` gets each request head (and body) as text and writes whatever bytes the
 * test wants, so that answers node:http would never write (close-delimited, 1xx, malformed) can be sent.
 */
async function member(
  answer: (request: string, socket: Socket) => void,
): Promise<{ server: Server; url: URL; connections: () => number; requests: string[] }> {
  const requests: string[] = [];
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      for (;;) {
        const end = text.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
        const whole = end + 4 + Number(length ?? 0);
        if (text.length < whole) return;
        const request = text.slice(0, whole);
        text = text.slice(whole);
        requests.push(request);
        answer(request, socket);
      }
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return {
    server,
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    connections: () => connections,
    requests,
  };
}

const servers: Server[] = [];
const pools: UpstreamConnections[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) p.destroy();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function pool(url: URL, maxSockets = 1): UpstreamConnections {
  const p = new UpstreamConnections(url, { maxSockets });
  pools.push(p);
  return p;
}

interface Outcome {
  events: string[];
  status?: number;
  headers?: string[];
  body: string;
  error?: string;
}

/** A handler recording what it is told; `abortAtConnect` gives up before anything is written. */
function send(p: UpstreamConnections, request: Partial<UpstreamRequest>, abortAtConnect = false): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { events: [], body: '' };
    const handler: UpstreamHandler = {
      onConnect(abort) {
        out.events.push('connect');
        if (abortAtConnect) {
          abort();
          resolve(out);
        }
      },
      onHeaders(status, raw) {
        out.events.push('headers');
        out.status = status;
        out.headers = raw;
        return true;
      },
      onData(chunk) {
        out.body += chunk.toString('latin1');
        return true;
      },
      onComplete() {
        out.events.push('complete');
        resolve(out);
      },
      onError(err) {
        out.events.push('error');
        out.error = (err as NodeJS.ErrnoException).code;
        resolve(out);
      },
    };
    p.dispatch({ method: 'GET', path: '/v2/info', headers: ['host', 'member'], body: null, ...request }, handler);
  });
}

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;

describe('UpstreamConnections', () => {
  it('writes the request as given and reuses one keep-alive connection, queueing beyond its sockets', async () => {
    const m = await member((_req, socket) => socket.write(ok('{"a":1}', 'X-Up: yes\r\n')));
    const p = pool(m.url, 1);
    const [a, b, c] = await Promise.all([
      send(p, { path: '/one?x=1' }),
      send(p, { path: '/two', method: 'POST', headers: ['host', 'member', 'content-length', '5'], body: Buffer.from('hello') }),
      send(p, { path: '/three' }),
    ]);
    expect(a).toMatchObject({ events: ['connect', 'headers', 'complete'], status: 200, body: '{"a":1}' });
    expect(a.headers).toEqual(['Content-Length', '7', 'X-Up', 'yes']);
    expect(b.body).toBe('{"a":1}');
    expect(c.body).toBe('{"a":1}');
    expect(m.connections()).toBe(1);
    expect(m.requests).toEqual([
      'GET /one?x=1 HTTP/1.1\r\nhost: member\r\n\r\n',
      'POST /two HTTP/1.1\r\nhost: member\r\ncontent-length: 5\r\n\r\nhello',
      'GET /three HTTP/1.1\r\nhost: member\r\n\r\n',
    ]);
  });

  it('reads HEAD answers without a body, chunked and close-delimited bodies, and skips 1xx answers', async () => {
    const m = await member((req, socket) => {
      if (req.startsWith('HEAD')) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n');
      else if (req.includes('/chunked'))
        socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n');
      else if (req.includes('/continue')) socket.write('HTTP/1.1 100 Continue\r\n\r\n' + ok('after'));
      else socket.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end');
    });
    const p = pool(m.url, 1);
    const head = await send(p, { method: 'HEAD' });
    const chunked = await send(p, { path: '/chunked' });
    const cont = await send(p, { path: '/continue' });
    const closing = await send(p, { path: '/close' });
    expect(head).toMatchObject({ events: ['connect', 'headers', 'complete'], body: '' });
    expect(chunked).toMatchObject({ events: ['connect', 'headers', 'complete'], body: 'hello world' });
    expect(cont).toMatchObject({ events: ['connect', 'headers', 'complete'], status: 200, body: 'after' });
    expect(closing).toMatchObject({ events: ['connect', 'headers', 'complete'], body: 'until the end' });
    // HEAD, chunked and 1xx kept the first connection; the close-delimited answer ended it.
    expect(m.connections()).toBe(1);
    const again = await send(p, { path: '/chunked' });
    expect(again.body).toBe('hello world');
    expect(m.connections()).toBe(2);
  });

  it('fails before onConnect when the member cannot be reached', async () => {
    const m = await member(() => undefined);
    const url = m.url;
    await new Promise((r) => m.server.close(r));
    servers.splice(0);
    const out = await send(pool(url), {});
    expect(out).toMatchObject({ events: ['error'], error: 'ECONNREFUSED' });
  });

  it('fails an answer the member cuts, or one the parser refuses, after onConnect', async () => {
    const m = await member((req, socket) => {
      if (req.includes('/cut')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this');
      else socket.write('HTTP/1.1 2x0 Nonsense\r\n\r\n');
    });
    const cut = await send(pool(m.url), { path: '/cut' });
    const bad = await send(pool(m.url), { path: '/bad' });
    expect(cut).toMatchObject({ events: ['connect', 'headers', 'error'], body: 'only this' });
    expect(cut.error).toMatch(/^(HPE_|UPSTREAM_CLOSED)/);
    expect(bad.events).toEqual(['connect', 'error']);
    expect(bad.error).toMatch(/^HPE_/);
  });

  it('writes nothing for a header or target that could split the request', async () => {
    const m = await member((_req, socket) => socket.write(ok('x')));
    const p = pool(m.url);
    const header = await send(p, { headers: ['host', 'member', 'x-evil', 'a\r\nInjected: 1'] });
    const target = await send(p, { path: '/a b HTTP/1.1\r\nX: y' });
    const name = await send(p, { headers: ['host', 'member', 'bad name', 'v'] });
    for (const out of [header, target, name]) expect(out).toMatchObject({ events: ['error'], error: 'UPSTREAM_INVALID_REQUEST' });
    expect(m.connections()).toBe(0);
  });

  it('sends nothing for a request given up at onConnect, and keeps the connection for the next', async () => {
    const m = await member((_req, socket) => socket.write(ok('fine')));
    const p = pool(m.url, 1);
    const first = await send(p, { path: '/given-up' }, true);
    const second = await send(p, { path: '/next' });
    expect(first.events).toEqual(['connect']);
    expect(second.body).toBe('fine');
    expect(m.requests).toEqual(['GET /next HTTP/1.1\r\nhost: member\r\n\r\n']);
    expect(m.connections()).toBe(1);
  });
});
