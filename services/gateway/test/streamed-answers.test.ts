import { createServer, type Server } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, freePort, testInfra } from '@bda/test-support';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';

/** The gateway's silence limit on an upstream exchange (UPSTREAM_TRY_TIMEOUT_MS): short, so the test waits past it. */
const TRY_TIMEOUT_MS = 300;

/** Reads one whole HTTP/1.1 answer with a Content-Length from a keep-alive socket; rejects if the socket closes first. */
function readAnswer(socket: Socket): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buf.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      if (buf.length < end + 4 + length) return;
      done();
      resolve({ status: Number(head.split(' ')[1]), body: buf.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    const onClose = () => {
      done();
      reject(new Error('the gateway closed the connection'));
    };
    const done = () => {
      socket.off('data', onData);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('close', onClose);
  });
}

/**
 * An answer the gateway relays while it is still arriving (its head first, its body later) leaves the client's
 * keep-alive connection as it found it: nothing of that exchange acts on the connection once the answer is complete.
 */
describe('answers relayed while they arrive', () => {
  let api: Server;
  let gw: GatewayProcess;

  beforeAll(async () => {
    // An api whose answer comes in two writes 50 ms apart: the gateway relays the head before the body is complete.
    api = createServer((req, res) => {
      const body = JSON.stringify({ path: req.url, filler: 'x'.repeat(2_000) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, 100));
      setTimeout(() => res.end(body.slice(100)), 50);
    });
    const apiPort = await freePort();
    await new Promise<void>((resolve) => api.listen(apiPort, '127.0.0.1', resolve));
    gw = await startGatewayProcess({
      DATABASE_URL: await createTestDatabase(testInfra().databaseUrl, 'gw_streamed'),
      NODE_RPC_URLS: 'http://127.0.0.1:9',
      API_URLS: `http://127.0.0.1:${apiPort}`,
      UPSTREAM_TRY_TIMEOUT_MS: String(TRY_TIMEOUT_MS),
      RATE_LIMIT_ENABLED: 'false',
    });
  });

  afterAll(async () => {
    await gw?.stop();
    await new Promise((resolve) => api?.close(resolve));
  });

  // The fast path serves a head that arrives whole; a head split over two reads sends the connection to node:http for
  // its life (fast-path.ts): both answer objects must be safe.
  it.each([
    ['the fast path', false],
    ['node:http', true],
  ])(
    'keeps the client connection open and usable after a streamed answer, past the upstream silence limit (%s)',
    async (_, split) => {
      const socket = createConnection({ host: '127.0.0.1', port: gw.port });
      socket.on('error', () => undefined);
      try {
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        for (const path of ['/extended/one', '/extended/two', '/extended/three']) {
          const answer = readAnswer(socket);
          const head = `GET ${path} HTTP/1.1\r\nHost: gw\r\n\r\n`;
          if (split) {
            socket.write(head.slice(0, 10));
            await new Promise((r) => setTimeout(r, 20));
            socket.write(head.slice(10));
          } else socket.write(head);
          const { status, body } = await answer;
          expect(status).toBe(200);
          expect((JSON.parse(body) as { path: string }).path).toBe(path);
          // Idle for longer than the upstream silence limit: a timer of the finished exchange must not close the
          // connection (it did: the next request then met a closed socket).
          await new Promise((r) => setTimeout(r, TRY_TIMEOUT_MS * 2));
          expect(socket.destroyed).toBe(false);
        }
      } finally {
        socket.destroy();
      }
    },
  );
});
