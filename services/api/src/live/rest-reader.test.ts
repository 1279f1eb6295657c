import { describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { loopbackRestReader } from './rest-reader';

/** A server whose first `resets` requests have their connection destroyed before any answer, then answers JSON. */
async function flakyServer(resets: number): Promise<{ server: Server; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    if (requests <= resets) {
      req.socket.destroy();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.url, attempt: requests }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, requests: () => requests };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('loopback REST reader', () => {
  it('reads again when the connection is reset before an answer, and returns the answer', async () => {
    const { server, requests } = await flakyServer(2);
    try {
      await expect(loopbackRestReader(server)('/extended/v1/block/by_height/7')).resolves.toEqual({
        status: 200,
        body: { path: '/extended/v1/block/by_height/7', attempt: 3 },
      });
      expect(requests()).toBe(3);
    } finally {
      await close(server);
    }
  });

  it('gives up after three reset attempts', async () => {
    const { server, requests } = await flakyServer(5);
    try {
      await expect(loopbackRestReader(server)('/x')).rejects.toThrow();
      expect(requests()).toBe(3);
    } finally {
      await close(server);
    }
  });
});
