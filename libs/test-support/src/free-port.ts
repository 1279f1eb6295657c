import { createServer } from 'node:net';

/** Asks the OS for a free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `n` distinct free TCP ports on loopback. Every port is held until all of them are known: asked one after the other
 * with `freePort`, the OS may hand the port it just got back again (it was free by then), and two services of one
 * system would then be given the same port, the second failing to bind while the first answers its health check.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const srv = createServer();
          srv.unref();
          srv.once('error', reject);
          srv.listen(0, '127.0.0.1', () => resolve(srv));
        }),
    ),
  );
  const ports = servers.map((srv) => {
    const addr = srv.address();
    return typeof addr === 'object' && addr ? addr.port : 0;
  });
  await Promise.all(servers.map((srv) => new Promise<void>((resolve) => srv.close(() => resolve()))));
  return ports;
}
