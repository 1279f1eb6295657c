import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import { closeServer, listen } from './listen';

/** Writes `raw` to the server and resolves with everything it answered until it closed the connection. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; contentType: string | undefined; body: unknown } {
  const [head, body = ''] = answer.split('\r\n\r\n', 2);
  const lines = head!.split('\r\n');
  const contentType = lines.find((l) => /^content-type:/i.test(l))?.split(': ')[1];
  return { status: Number(lines[0]!.split(' ')[1]), contentType, body: body ? JSON.parse(body) : undefined };
}

describe('listen', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await closeServer(server);
    server = undefined;
  });

  const start = async () => {
    const started = await listen((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    }, 0);
    server = started.server;
    return started.port;
  };

  it('answers 431 in JSON when the request line is beyond the header limit', async () => {
    const port = await start();
    const answer = parse(await exchange(port, `GET /x?limit=${'9'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ error: 'request_too_large', message: expect.stringContaining('16384 bytes') });
  });

  it('answers 400 in JSON when the request is not HTTP', async () => {
    const port = await start();
    const answer = parse(await exchange(port, 'HELLO THERE\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'malformed_request', message: 'the request is not valid HTTP/1.1' });
  });

  it('writes nothing into a response in progress when the next request on its connection is malformed', async () => {
    // A response that has sent its head and part of its body, and ends a little later.
    const started = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part;');
      setTimeout(() => res.end('last part'), 150);
    }, 0);
    server = started.server;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(started.port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n'));
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        // The head and the first part are out: now a request that is not HTTP.
        if (text === '') socket.write('NOT HTTP\r\n\r\n');
        text += chunk;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('first part;');
    expect(answer).not.toContain('malformed_request');
    expect(answer).not.toContain('HTTP/1.1 400');
  });
});
