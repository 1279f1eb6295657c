import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, freePorts, testInfra, expectMessage } from '@bda/test-support';
import { startService, stopService, waitForHttp, type ServiceProcess } from '../../scripts/lib/service-process';

/** Whether a TCP connection to `host:port` is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve(false) : reject(err)));
  });
}

describe('the observer, the indexer and the api started without a host', () => {
  const procs: ServiceProcess[] = [];
  const logs: string[] = [];
  let ports: { observer: number; indexer: number; api: number };
  // An address of this machine that other machines reach (the probe found 0.0.0.0 binds answering there).
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'loopback');
    const [observer, indexer, api] = (await freePorts(3)) as [number, number, number];
    ports = { observer, indexer, api };
    const common = { DATABASE_URL: databaseUrl, KAFKA_BROKERS: '', LOG_LEVEL: 'warn', BUS_TOPIC_PREFIX: `lb${indexer}` };
    const start = async (name: 'observer' | 'indexer' | 'api', env: NodeJS.ProcessEnv, health: string) => {
      const p = startService(name, { ...common, ...env }, (n, line) => logs.push(`${n} ${line}`));
      procs.push(p);
      await waitForHttp(`http://127.0.0.1:${ports[name]}/${health}`, 120_000, () => p.child.exitCode === null);
    };
    // The indexer first: it runs the migrations. No OBSERVER_HOST, INDEXER_HOST or API_HOST: the defaults.
    await start('indexer', { INDEXER_PORT: String(indexer) }, 'readyz');
    await start('observer', { OBSERVER_PORT: String(observer) }, 'healthz');
    await start('api', { API_PORT: String(api), API_WORKERS: '1' }, 'healthz');
  }, 180_000);
  afterAll(async () => {
    for (const p of procs.reverse()) await stopService(p);
  });

  it('listen on loopback only: this machine reaches them, its other addresses do not', async () => {
    expectMessage('this test needs a non-loopback IPv4 address on the machine', () => expect(external).toBeDefined());
    for (const [name, port] of Object.entries(ports)) {
      expect([name, await accepts('127.0.0.1', port)]).toEqual([name, true]);
      expect([name, await accepts(external!, port)]).toEqual([name, false]);
    }
  });

  it('answer without naming their framework (no X-Powered-By)', async () => {
    for (const [name, port] of Object.entries(ports)) {
      for (const path of ['/healthz', '/status', '/nope']) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        await res.arrayBuffer();
        expect([name, path, res.headers.get('x-powered-by')]).toEqual([name, path, null]);
      }
    }
  });

  it('the observer takes events from this machine (loopback is its default allow-list)', async () => {
    const res = await fetch(`http://127.0.0.1:${ports.observer}/some_new_path`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
  });
});
