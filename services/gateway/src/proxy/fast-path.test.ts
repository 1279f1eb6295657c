import { once } from 'node:events';
import { Agent, createServer, IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { attachFastPath, type FastPath } from './fast-path';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Served {
  server: Server;
  port: number;
  fast: FastPath;
  /** Per request seen by the handler: true when it came through the fast path (not an IncomingMessage). */
  paths: boolean[];
}

const open: Array<{ server: Server; fast: FastPath }> = [];
afterEach(async () => {
  for (const { server, fast } of open.splice(0)) {
    fast.closeIdle();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

async function serve(handler: Handler, headersTimeoutMs = 10_000): Promise<Served> {
  const paths: boolean[] = [];
  const listener: Handler = (req, res) => {
    paths.push(!(req instanceof IncomingMessage));
    handler(req, res);
  };
  const server = createServer(listener);
  const fast = attachFastPath(server, listener as never, { serves: (url) => url !== '/own', headersTimeoutMs });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  open.push({ server, fast });
  return { server, port: (server.address() as AddressInfo).port, fast, paths };
}

/** Sends raw bytes on one connection and collects what comes back until `done` says the answer is whole. */
async function exchange(
  port: number,
  chunks: string[],
  done: (text: string) => boolean,
): Promise<{ text: string; socket: Socket }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  const whole = new Promise<void>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (done(text)) resolve();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
  for (const c of chunks) socket.write(c);
  await whole;
  return { text, socket };
}

function get(
  port: number,
  path: string,
  agent: Agent,
  method = 'GET',
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, agent, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const jsonHandler: Handler = (req, res) => {
  const body = JSON.stringify({ url: req.url, key: req.headers['x-api-key'] ?? null });
  res.writeHead(200, 'OK', ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body))]);
  res.end(body);
};

describe('attachFastPath', () => {
  it('answers keep-alive GETs on the fast path, one connection for several requests', async () => {
    const s = await serve(jsonHandler);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const a = await get(s.port, '/v2/info?x=1', agent);
    const b = await get(s.port, '/extended', agent);
    agent.destroy();
    expect(a).toMatchObject({ status: 200, body: '{"url":"/v2/info?x=1","key":null}' });
    expect(b.body).toBe('{"url":"/extended","key":null}');
    expect(a.headers['content-type']).toBe('application/json');
    expect(a.headers.connection).toBe('keep-alive');
    expect(a.headers['keep-alive']).toBe('timeout=5');
    expect(Number.isNaN(Date.parse(a.headers.date!))).toBe(false);
    expect(s.paths).toEqual([true, true]);
  });

  it('writes exactly the head and body a GET gets from node:http', async () => {
    const s = await serve(jsonHandler);
    const { text, socket } = await exchange(s.port, ['GET /a HTTP/1.1\r\nHost: x\r\nX-Api-Key: k1\r\n\r\n'], (t) =>
      t.endsWith('}'),
    );
    socket.destroy();
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')).toEqual([
      'HTTP/1.1 200 OK',
      'Content-Type: application/json',
      'Content-Length: 23',
      expect.stringMatching(/^Date: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/),
      'Connection: keep-alive',
      'Keep-Alive: timeout=5',
    ]);
    expect(body).toBe('{"url":"/a","key":"k1"}');
    expect(s.paths).toEqual([true]);
  });

  it('writes the same bytes as node:http for the answers the gateway writes (Date aside)', async () => {
    const handler: Handler = (req, res) => {
      if (req.url === '/relay') {
        res.writeHead(200, 'OK', ['Content-Type', 'application/json', 'Content-Length', '2', 'x-request-id', 'r1']);
        res.end(Buffer.from('{}'));
      } else if (req.url === '/error') {
        res.setHeader('x-request-id', 'r2');
        res.statusCode = 503;
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.setHeader('content-length', 15);
        res.end('{"error":"x"}\r\n');
      } else if (req.url === '/stream') {
        res.writeHead(200, 'OK', ['content-type', 'text/plain']);
        res.write(Buffer.from('ab'));
        res.end();
      } else res.end();
    };
    const fast = await serve(handler);
    const plain = createServer(handler);
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    open.push({ server: plain, fast: { closeIdle: () => undefined, connections: () => 0 } });
    const plainPort = (plain.address() as AddressInfo).port;
    const undated = (t: string) => t.replace(/\r\nDate: [^\r]+/, '');
    const ends: Record<string, (t: string) => boolean> = {
      '/relay': (t) => t.endsWith('{}'),
      '/error': (t) => t.endsWith('\r\n') && t.includes('{"error"'),
      '/stream': (t) => t.endsWith('0\r\n\r\n'),
      '/empty': (t) => t.endsWith('\r\n\r\n'),
    };
    for (const [path, done] of Object.entries(ends)) {
      for (const method of ['GET', 'HEAD']) {
        const request = `${method} ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
        const headOnly = (t: string) => t.includes('\r\n\r\n');
        const a = await exchange(fast.port, [request], method === 'HEAD' ? headOnly : done);
        const b = await exchange(plainPort, [request], method === 'HEAD' ? headOnly : done);
        a.socket.destroy();
        b.socket.destroy();
        expect(`${method} ${path}\n${undated(a.text)}`).toBe(`${method} ${path}\n${undated(b.text)}`);
      }
    }
    expect(fast.paths.every((p) => p)).toBe(true);
  });

  it('frames an answer without a length as chunked, as node:http does', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, 'OK', ['content-type', 'text/plain']);
      res.write(Buffer.from('hello '));
      res.write(Buffer.from('world'));
      res.end();
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const a = await get(s.port, '/chunked', agent);
    const b = await get(s.port, '/chunked', agent);
    agent.destroy();
    expect(a.headers['transfer-encoding']).toBe('chunked');
    expect(a.body).toBe('hello world');
    expect(b.body).toBe('hello world');
    const { text, socket } = await exchange(s.port, ['GET /c HTTP/1.1\r\nHost: x\r\n\r\n'], (t) => t.endsWith('0\r\n\r\n'));
    socket.destroy();
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n');
  });

  it('sends no body for HEAD, and an error answer set with setHeader gets its length', async () => {
    const s = await serve((req, res) => {
      res.statusCode = req.method === 'HEAD' ? 200 : 429;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('retry-after', '7');
      res.end('{"error":"rate_limited"}');
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const limited = await get(s.port, '/x', agent);
    const head = await get(s.port, '/x', agent, 'HEAD');
    const after = await get(s.port, '/x', agent);
    agent.destroy();
    expect(limited).toMatchObject({ status: 429, body: '{"error":"rate_limited"}' });
    expect(limited.headers).toMatchObject({ 'retry-after': '7', 'content-length': '24' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(after.status).toBe(429);
    expect(s.paths).toEqual([true, true, true]);
  });

  it('hands a request with a body, and its connection from then on, to node:http', async () => {
    const s = await serve((req, res) => {
      let body = '';
      const method = req.method;
      if (req instanceof IncomingMessage) {
        req.setEncoding('utf8');
        req.on('data', (c: string) => (body += c));
        req.on('end', () => res.end(`${method} ${body}`));
      } else res.end(`${method} fast`);
    });
    const { text, socket } = await exchange(s.port, ['GET /one HTTP/1.1\r\nHost: x\r\n\r\n'], (t) => t.endsWith('GET fast'));
    const more = new Promise<string>((resolve) => {
      let t = '';
      socket.removeAllListeners('data');
      socket.on('data', (d: Buffer) => {
        t += d.toString('latin1');
        if (t.endsWith('GET ')) resolve(t);
      });
    });
    socket.write('POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
    socket.write('GET /three HTTP/1.1\r\nHost: x\r\n\r\n');
    const rest = await more;
    socket.destroy();
    expect(text).toContain('GET fast');
    expect(rest).toContain('POST hello');
    expect(s.paths).toEqual([true, false, false]);
  });

  it('leaves pipelined requests, upgrades, HTTP/1.0, repeated headers and its own paths to node:http', async () => {
    const s = await serve((req, res) => res.end(req.url));
    const cases = [
      'GET /p1 HTTP/1.1\r\nHost: x\r\n\r\nGET /p2 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      'GET /old HTTP/1.0\r\nHost: x\r\n\r\n',
      'GET /close HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /twice HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\r\nx-api-key: b\r\n\r\n',
      'GET /own HTTP/1.1\r\nHost: x\r\n\r\n',
    ];
    for (const c of cases) {
      const { socket } = await exchange(s.port, [c], (t) => /\/(p2|ws|old|close|twice|own)$/.test(t));
      socket.destroy();
    }
    // Seven requests (two pipelined), every one node:http's (an upgrade nobody listens for is a plain request there).
    expect(s.paths).toEqual([false, false, false, false, false, false, false]);
  });

  it('lets node:http answer a malformed request', async () => {
    const s = await serve(jsonHandler);
    const { text } = await exchange(s.port, ['GET /a HTTP/1.1\r\nHost x\r\n\r\n'], (t) => t.includes('\r\n\r\n'));
    expect(text.startsWith('HTTP/1.1 400')).toBe(true);
    expect(s.paths).toEqual([]);
  });

  it('tells the handler when the client goes away before the answer is written', async () => {
    let closed: Promise<boolean> | undefined;
    const s = await serve((_req, res) => {
      closed = new Promise((resolve) => res.once('close', () => resolve(res.writableFinished)));
      res.writeHead(200, 'OK', ['content-type', 'text/plain']);
      res.write(Buffer.from('partial'));
    });
    const { socket } = await exchange(s.port, ['GET /slow HTTP/1.1\r\nHost: x\r\n\r\n'], (t) => t.includes('partial'));
    socket.destroy();
    await expect(closed).resolves.toBe(false);
  });

  it('refuses a header value node:http would refuse', async () => {
    let error: unknown;
    const s = await serve((_req, res) => {
      try {
        res.writeHead(200, 'OK', ['x-bad', 'a\r\nb']);
      } catch (err) {
        error = err;
      }
      res.end();
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await get(s.port, '/bad', agent).catch(() => undefined);
    agent.destroy();
    expect((error as NodeJS.ErrnoException).code).toBe('ERR_INVALID_CHAR');
  });

  it('closes idle connections at shutdown and a busy one after its answer', async () => {
    let finish: (() => void) | undefined;
    const s = await serve((req, res) => {
      if (req.url === '/wait') finish = () => res.end('late');
      else res.end('now');
    });
    const idle = await exchange(s.port, ['GET /now HTTP/1.1\r\nHost: x\r\n\r\n'], (t) => t.endsWith('now'));
    const idleClosed = once(idle.socket, 'close');
    const busySocket = connect(s.port, '127.0.0.1');
    let busyText = '';
    busySocket.on('data', (d: Buffer) => (busyText += d.toString('latin1')));
    const busyClosed = once(busySocket, 'close');
    busySocket.write('GET /wait HTTP/1.1\r\nHost: x\r\n\r\n');
    while (finish === undefined) await new Promise((r) => setImmediate(r));
    s.fast.closeIdle();
    await idleClosed;
    finish();
    await busyClosed;
    expect(busyText).toContain('Connection: close');
    expect(busyText.endsWith('late')).toBe(true);
    while (s.fast.connections() > 0) await new Promise((r) => setImmediate(r));
    expect(s.fast.connections()).toBe(0);
  });
});
