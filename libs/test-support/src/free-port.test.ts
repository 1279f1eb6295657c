import { createServer } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { freePort, freePorts, freePortsBetween, portRange } from './free-port';

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

  it('takes ports below the range the kernel hands out for outgoing connections', async () => {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    for (const port of [...(await freePorts(32)), await freePort()]) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(start!);
    }
  });

  it('skips a port that is already taken', async () => {
    const [low] = await freePorts(1);
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(low! + 1, '127.0.0.1', () => resolve()));
    try {
      // Three ports to draw from, the middle one taken: the other two, in some order.
      for (let i = 0; i < 5; i++) expect((await freePortsBetween(2, low!, low! + 3)).sort()).toEqual([low, low! + 2]);
      await expect(freePortsBetween(3, low!, low! + 3)).rejects.toThrow(/no 3 free ports/);
    } finally {
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    }
  });
});

describe('portRange', () => {
  it("takes the whole range when BDA_TEST_PORTS is not set, and the lane's share when it is", () => {
    expect(portRange(undefined, [20_000, 32_768])).toEqual([20_000, 32_768]);
    expect(portRange('', [20_000, 32_768])).toEqual([20_000, 32_768]);
    expect(portRange('26384-32767', [20_000, 32_768])).toEqual([26_384, 32_767]);
  });

  it('refuses a range it cannot use', () => {
    for (const spec of ['26384', '32767-26384', '80-1000', '20000-20050', '20000-70000', 'a-b']) {
      expect(() => portRange(spec, [20_000, 32_768])).toThrow(/BDA_TEST_PORTS/);
    }
  });
});
