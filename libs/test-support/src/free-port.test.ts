import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePorts } from './free-port';

describe('freePorts', () => {
  it('gives distinct ports, each of which can then be bound', async () => {
    const ports = await freePorts(16);
    expect(new Set(ports).size).toBe(16);
    const servers = await Promise.all(
      ports.map(
        (port) =>
          new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
            const srv = createServer();
            srv.once('error', reject);
            srv.listen(port, '127.0.0.1', () => resolve(srv));
          }),
      ),
    );
    await Promise.all(servers.map((srv) => new Promise<void>((resolve) => srv.close(() => resolve()))));
  });
});
