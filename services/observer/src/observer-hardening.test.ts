import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { constants as zlibConstants, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createLogger, createMetricsRegistry } from '@bda/common';
import type { BusProducer, OutgoingRecord } from '@bda/bus';
import { buildApp, type ObserverDeps } from './build-app';
import { loadObserverEnv } from './env';
import { allowedPeersFor, parsePeerAllowList } from './peer-allow-list';

/** A producer that keeps what it is given. */
class MemoryProducer implements BusProducer {
  published: Array<{ topic: string; message: OutgoingRecord }> = [];
  async connect(): Promise<void> {}
  async publish(topic: string, messages: OutgoingRecord[]): Promise<void> {
    for (const message of messages) this.published.push({ topic, message });
  }
  isHealthy(): boolean {
    return true;
  }
  async disconnect(): Promise<void> {}
}

const BURN_BLOCK = JSON.stringify({
  burn_block_hash: '0x' + 'ab'.repeat(32),
  burn_block_height: 100,
  burn_amount: 0,
  reward_recipients: [],
  reward_slot_holders: [],
  consensus_hash: '0x' + 'cd'.repeat(20),
  parent_burn_block_hash: '0x' + 'ef'.repeat(32),
});

async function startObserver(
  producer: MemoryProducer,
  deps: Partial<ObserverDeps> = {},
): Promise<{ server: Server; port: number }> {
  const app = buildApp({
    producer,
    logger: createLogger('observer', 'silent'),
    metrics: createMetricsRegistry('observer'),
    bodyLimit: '512mb',
    isShuttingDown: () => false,
    ...deps,
  });
  const server = createServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, port: (server.address() as { port: number }).port };
}

function post(
  port: number,
  path: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> | null }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes `head` on a raw socket, then whatever `feed` writes; resolves with everything read once the server closes. */
function rawExchange(port: number, head: string, feed?: (write: (b: string) => boolean) => () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let stop = () => {};
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      if (feed) stop = feed((b) => !socket.destroyed && socket.write(b));
    });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    socket.on('close', () => {
      stop();
      resolve(text);
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err),
    );
  });
}

describe('who may post to the observer', () => {
  const producer = new MemoryProducer();
  let server: Server;
  let port: number;
  beforeAll(async () => {
    // The test's own address (127.0.0.1) is not in this list: it stands for a forger on the network.
    ({ server, port } = await startObserver(producer, { allowedPeers: parsePeerAllowList('10.0.0.0/8, fd00::/8') }));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    producer.published = [];
  });

  it('refuses a forged event from a peer outside OBSERVER_ALLOWED_CIDRS with 403 JSON, and publishes nothing', async () => {
    const res = await post(port, '/new_burn_block', BURN_BLOCK);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: expect.stringContaining('127.0.0.1') });
    expect(producer.published).toHaveLength(0);
  });

  it('answers the 403 before the body has arrived, and closes the connection', async () => {
    // Announces 50 MB and sends 10 bytes: the answer comes without waiting for the rest.
    const answer = await rawExchange(port, 'POST /new_block HTTP/1.1\r\nhost: x\r\ncontent-length: 52428800\r\n\r\n{"a":12345');
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"error":"forbidden"');
    expect(producer.published).toHaveLength(0);
  });

  it('still serves health to anyone', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });
});

describe('peers allowed by default', () => {
  it('is loopback when the observer listens on loopback, and listens there unless told otherwise', async () => {
    const env = loadObserverEnv({});
    expect(env.OBSERVER_HOST).toBe('127.0.0.1');
    const peers = allowedPeersFor(env.OBSERVER_ALLOWED_CIDRS, env.OBSERVER_HOST);
    expect([peers.allows('127.0.0.1'), peers.allows('::1'), peers.allows('::ffff:127.0.0.1')]).toEqual([true, true, true]);
    expect([peers.allows('192.0.2.2'), peers.allows('fd00::2'), peers.allows(undefined)]).toEqual([false, false, false]);
    const producer = new MemoryProducer();
    const { server, port } = await startObserver(producer, { allowedPeers: peers });
    try {
      expect((await post(port, '/new_burn_block', BURN_BLOCK)).status).toBe(200);
      expect(producer.published).toHaveLength(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('refuses to start on another interface without a list', () => {
    expect(() => allowedPeersFor('', '0.0.0.0')).toThrow(/OBSERVER_ALLOWED_CIDRS/);
    expect(() => allowedPeersFor('', '::')).toThrow(/OBSERVER_ALLOWED_CIDRS/);
    const everyone = allowedPeersFor('0.0.0.0/0,::/0', '0.0.0.0');
    expect([everyone.allows('203.0.113.9'), everyone.allows('2001:db8::1')]).toEqual([true, true]);
  });

  it('reads IPv4 and IPv6 CIDRs and bare addresses, and names a bad entry', () => {
    const list = parsePeerAllowList('10.1.0.0/16, 192.0.2.7 ,2001:db8::/32');
    expect(
      ['10.1.255.255', '10.2.0.0', '192.0.2.7', '192.0.2.8', '2001:db8:ffff::1', '2001:db9::1'].map((a) => list.allows(a)),
    ).toEqual([true, false, true, false, true, false]);
    expect(() => parsePeerAllowList('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33/);
    expect(() => parsePeerAllowList('node-1/24')).toThrow(/node-1/);
    expect(() => parsePeerAllowList(' , ')).toThrow(/empty/);
    expect(() => loadObserverEnv({ OBSERVER_ALLOWED_CIDRS: '10.0.0.0/8,example.com' })).toThrow(/OBSERVER_ALLOWED_CIDRS/);
  });
});

describe('a body that trickles in', () => {
  const producer = new MemoryProducer();
  let server: Server;
  let port: number;
  beforeAll(async () => {
    // Test-sized: 200 ms of grace, then 1,000 bytes a second on average.
    ({ server, port } = await startObserver(producer, { bodyPace: { graceMs: 200, minBytesPerSecond: 1_000 } }));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('is answered 408 and its connection closed, where a sender of 1 byte a second held it open', async () => {
    const answer = await rawExchange(port, 'POST /new_block HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n', (write) => {
      const timer = setInterval(() => write('x'), 1_000);
      return () => clearInterval(timer);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"error":"request_timeout"');
    expect(producer.published).toHaveLength(0);
  });

  it('takes a body that keeps above the rate, however long it takes in all', async () => {
    // 2,000 bytes in chunks of 100 every 20 ms: 5,000 bytes a second, five times the minimum, well past the grace.
    const body = Buffer.from(BURN_BLOCK.padEnd(2_000, ' '));
    const answer = await rawExchange(
      port,
      `POST /new_burn_block HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n`,
      (write) => {
        let at = 0;
        const timer = setInterval(() => {
          if (at >= body.length) return clearInterval(timer);
          write(body.subarray(at, at + 100).toString('latin1'));
          at += 100;
        }, 20);
        return () => clearInterval(timer);
      },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(producer.published).toHaveLength(1);
  });
});

describe('a compressed body', () => {
  const producer = new MemoryProducer();
  let server: Server;
  let port: number;
  let bomb: Buffer;
  beforeAll(async () => {
    // The default limit (512mb) and ratio (100).
    ({ server, port } = await startObserver(producer));
    // 100 MB of zeros, gzip'd to about 100 KB, made in 1 MB pieces so the test never holds the 100 MB itself.
    const gzip = createGzip({ level: zlibConstants.Z_BEST_COMPRESSION });
    const parts: Buffer[] = [];
    gzip.on('data', (c: Buffer) => parts.push(c));
    const done = new Promise((r) => gzip.once('end', r));
    const mb = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 100; i++) if (!gzip.write(mb)) await new Promise((r) => gzip.once('drain', r));
    gzip.end();
    await done;
    bomb = Buffer.concat(parts);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    producer.published = [];
  });

  it('that inflates 100 KB into 100 MB is refused with 413, and the observer goes on serving', async () => {
    expect(bomb.length).toBeGreaterThan(50_000);
    expect(bomb.length).toBeLessThan(200_000);
    const res = await post(port, '/new_block', bomb, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'payload_too_large', message: expect.stringMatching(/inflates to more than 100 times/) });
    expect(producer.published).toHaveLength(0);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await post(port, '/new_burn_block', gzipSync(BURN_BLOCK), { 'content-encoding': 'gzip' })).status).toBe(200);
    expect(producer.published).toHaveLength(1);
  });

  it('is bounded the same way when it is deflate', async () => {
    const res = await post(port, '/new_block', deflateSync(Buffer.alloc(20 * 1024 * 1024)), { 'content-encoding': 'deflate' });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 'payload_too_large' });
  });

  it('of real size and ratio is taken whole', async () => {
    // A 3 MB JSON body of a realistic make-up (hex strings) compresses a few times: far within the ratio.
    const txs = Array.from({ length: 20_000 }, (_, i) => ({
      txid: '0x' + i.toString(16).padStart(64, '0'),
      raw_tx: '0x' + 'ab'.repeat(60),
    }));
    const body = JSON.stringify({ ...JSON.parse(BURN_BLOCK), extra: txs });
    const res = await post(port, '/new_burn_block', gzipSync(body), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(producer.published).toHaveLength(1);
  });
});
