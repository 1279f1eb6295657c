import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readBody } from './read-body';

describe('readBody', () => {
  let server: Server;
  let port: number;
  let seen: Promise<{ result: Buffer | string; complete: boolean }>;
  let onRequest: (r: { result: Buffer | string; complete: boolean }) => void;
  const next = (): void => {
    seen = new Promise((resolve) => (onRequest = resolve));
  };

  beforeAll(async () => {
    // Limit 10 bytes, drained up to 100.
    server = createServer((req: IncomingMessage, res) => {
      void readBody(req, 10, 100).then((result) => {
        onRequest({ result, complete: req.complete });
        res.end('done');
      });
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const post = (body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ port, method: 'POST' }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('gives a body within the limit whole', async () => {
    next();
    await post(Buffer.from('0123456789'));
    expect(await seen).toEqual({ result: Buffer.from('0123456789'), complete: true });
  });

  it('reads a body over the limit to its end before calling it too large, within the drain limit', async () => {
    next();
    await post(Buffer.alloc(100, 1));
    expect(await seen).toEqual({ result: 'too_large', complete: true });
  });

  it('calls a body past the drain limit too large at once, without reading it to its end', async () => {
    next();
    const socket = connect(port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n');
    socket.write(Buffer.alloc(150, 1));
    expect(await seen).toEqual({ result: 'too_large', complete: false });
    socket.destroy();
  });

  it('says so when the client goes away in the middle of the body', async () => {
    next();
    const socket = connect(port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 50\r\n\r\n01234');
    setTimeout(() => socket.destroy(), 20);
    expect(await seen).toEqual({ result: 'aborted', complete: false });
  });
});

describe('readBody with a pace', () => {
  let server: Server;
  let port: number;
  let seen: Promise<{ result: Buffer | string; complete: boolean }>;
  let onRequest: (r: { result: Buffer | string; complete: boolean }) => void;
  const next = (): void => {
    seen = new Promise((resolve) => (onRequest = resolve));
  };

  beforeAll(async () => {
    // 100 ms of grace, then at least 10 bytes a second on average.
    server = createServer((req: IncomingMessage, res) => {
      void readBody(req, 1000, 1000, { graceMs: 100, minBytesPerSecond: 10 }).then((result) => {
        onRequest({ result, complete: req.complete });
        res.setHeader('connection', 'close');
        res.end(String(result));
      });
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Sends the head, then `chunk` bytes every `everyMs` until `total` are sent; resolves with what came back. */
  const trickle = (total: number, chunk: number, everyMs: number) => {
    const socket = connect(port, '127.0.0.1');
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${total}\r\n\r\n`);
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || sent >= total) return clearInterval(timer);
      const n = Math.min(chunk, total - sent);
      socket.write(Buffer.alloc(n, 0x61));
      sent += n;
    }, everyMs);
    return new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
      socket.on('close', () => {
        clearInterval(timer);
        resolve(text);
      });
      socket.on('error', () => {});
    });
  };

  it('gives up on a body arriving slower than the minimum rate, with the rest unread', async () => {
    next();
    // 1 byte every 200 ms is 5 bytes a second: half the minimum, it can never catch up.
    const answer = trickle(100, 1, 200);
    expect(await seen).toEqual({ result: 'too_slow', complete: false });
    expect(await answer).toMatch(/too_slow$/);
  });

  it('takes a body that keeps above the minimum rate, however long it takes in all', async () => {
    next();
    // 10 bytes every 20 ms is 500 bytes a second, fifty times the minimum; 300 bytes take well beyond the grace.
    const answer = trickle(300, 10, 20);
    expect(await seen).toEqual({ result: Buffer.alloc(300, 0x61), complete: true });
    expect(await answer).toMatch(/a{300}$/);
  });
});
