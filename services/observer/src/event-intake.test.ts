import { createServer, request, type Server } from 'node:http';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createLogger, createMetricsRegistry, DRAIN_LIMIT_BYTES } from '@bda/common';
import { BusRecordRejectedError, BusUnavailableError, decodeEnvelope, type BusProducer, type OutgoingRecord } from '@bda/bus';
import { buildApp } from './build-app';
import { createReceiveClock, parseByteSize } from './event-intake';

/** A producer that keeps what it is given, or fails the way it is told to. */
class MemoryProducer implements BusProducer {
  published: Array<{ topic: string; message: OutgoingRecord }> = [];
  failWith?: Error;
  delays: number[] = [];
  async connect(): Promise<void> {}
  async publish(topic: string, messages: OutgoingRecord[]): Promise<void> {
    const delay = this.delays.shift();
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (this.failWith) throw this.failWith;
    for (const message of messages) this.published.push({ topic, message });
  }
  isHealthy(): boolean {
    return !this.failWith;
  }
  async disconnect(): Promise<void> {}
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error?: string; message?: string; result?: string } | null;
}

function call(
  port: number,
  method: string,
  path: string,
  body?: Buffer | string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  chunked = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? (JSON.parse(text) as Answer['body']) : null });
      });
    });
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (chunked) {
      // No content-length: the size is only known by reading.
      const buf = Buffer.from(body);
      for (let i = 0; i < buf.length; i += 64 * 1024) req.write(buf.subarray(i, i + 64 * 1024));
      req.end();
    } else req.end(body);
  });
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

describe('the observer intake', () => {
  const producer = new MemoryProducer();
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const app = buildApp({
      producer,
      logger: createLogger('observer', 'silent'),
      metrics: createMetricsRegistry('observer'),
      bodyLimit: '256kb',
      isShuttingDown: () => false,
    });
    server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    producer.published = [];
    producer.failWith = undefined;
  });

  it('publishes the exact body in an envelope and answers 200 with a request id', async () => {
    const res = await call(port, 'POST', '/new_burn_block', BURN_BLOCK, {
      'content-type': 'application/json',
      'x-request-id': 'abc-1',
    });
    expect(res).toMatchObject({ status: 200, body: { result: 'ok' } });
    expect(res.headers['x-request-id']).toBe('abc-1');
    expect(producer.published).toHaveLength(1);
    expect(producer.published[0]!.topic).toBe('stacks.node-events');
    const envelope = decodeEnvelope(producer.published[0]!.message.value);
    expect(envelope.path).toBe('/new_burn_block');
    expect(JSON.stringify(envelope.body)).toBe(JSON.stringify(JSON.parse(BURN_BLOCK)));
  });

  it('keeps arrival order on the bus when a later request is published faster', async () => {
    producer.delays = [40, 0];
    const first = call(port, 'POST', '/new_future_a', '{"n":1}');
    await new Promise((r) => setTimeout(r, 5));
    const second = call(port, 'POST', '/new_future_b', '{"n":2}');
    await Promise.all([first, second]);
    expect(producer.published.map((p) => decodeEnvelope(p.message.value).path)).toEqual(['/new_future_a', '/new_future_b']);
  });

  it('answers 400 naming the field for a body of the wrong shape, and publishes nothing', async () => {
    const res = await call(
      port,
      'POST',
      '/new_burn_block',
      JSON.stringify({ ...JSON.parse(BURN_BLOCK), burn_block_height: 'x' }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
    expect(res.body!.message).toMatch(/burn_block_height/);
    expect(producer.published).toHaveLength(0);
  });

  it('answers 400 for a body that is not JSON and for an empty one', async () => {
    expect((await call(port, 'POST', '/new_burn_block', '{"burn')).body!.message).toMatch(/not valid JSON/);
    expect((await call(port, 'POST', '/new_burn_block', '')).body!.message).toMatch(/JSON body is required/);
  });

  it('answers 413 past the limit, whether the size is declared or only found by reading', async () => {
    const big = Buffer.alloc(300 * 1024, 0x20);
    const declared = await call(port, 'POST', '/new_block', big);
    expect(declared).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
    const streamed = await call(port, 'POST', '/new_block', big, { 'content-type': 'application/json' }, true);
    expect(streamed).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
    expect(producer.published).toHaveLength(0);
  });

  it('lets a client still sending an oversized body read its 413, instead of a broken pipe', async () => {
    // From a process of its own: a client in this process shares the event loop with the server and never raced it.
    // Answered and closed while the body was still coming, about one upload in four failed with EPIPE.
    const client = `
      const http = require('node:http');
      const big = Buffer.alloc(2 * 1024 * 1024, 32);
      const outcomes = {};
      (async () => {
        for (let i = 0; i < 100; i++) {
          const key = await new Promise((resolve) => {
            const req = http.request({ port: ${port}, method: 'POST', path: '/new_block' }, (res) => {
              res.resume();
              res.on('end', () => resolve(String(res.statusCode)));
            });
            req.on('error', (e) => resolve(e.code || e.message));
            req.end(big);
          });
          outcomes[key] = (outcomes[key] || 0) + 1;
        }
        process.stdout.write(JSON.stringify(outcomes));
      })();`;
    const child = spawn(process.execPath, ['-e', client], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    await new Promise((resolve) => child.once('exit', resolve));
    expect(JSON.parse(out)).toEqual({ 413: 100 });
    expect(producer.published).toHaveLength(0);
  });

  it('answers a body declared beyond what it drains at once, and closes the connection', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`POST /new_block HTTP/1.1\r\nhost: x\r\ncontent-length: ${DRAIN_LIMIT_BYTES + 1}\r\n\r\n{"a":`),
      );
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('payload_too_large');
  });

  it('accepts a gzip body and stores it decompressed; refuses an encoding it cannot read', async () => {
    const res = await call(port, 'POST', '/new_burn_block', gzipSync(BURN_BLOCK), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(200);
    expect(decodeEnvelope(producer.published[0]!.message.value).body).toEqual(JSON.parse(BURN_BLOCK));
    const zstd = await call(port, 'POST', '/new_burn_block', 'x', {
      'content-type': 'application/json',
      'content-encoding': 'zstd',
    });
    expect(zstd.status).toBe(400);
    expect(zstd.body!.message).toMatch(/content-encoding "zstd"/);
  });

  it('answers 503 while the bus is unavailable and 413 when the bus refuses the event as too large', async () => {
    producer.failWith = new BusUnavailableError('broker down');
    expect(await call(port, 'POST', '/new_burn_block', BURN_BLOCK)).toMatchObject({
      status: 503,
      body: { error: 'service_unavailable' },
    });
    producer.failWith = new BusRecordRejectedError('too big', 'MESSAGE_TOO_LARGE');
    expect(await call(port, 'POST', '/new_burn_block', BURN_BLOCK)).toMatchObject({
      status: 413,
      body: { error: 'payload_too_large' },
    });
  });

  it('takes a raw bitcoin block with its height in the query', async () => {
    const res = await call(port, 'POST', '/new_bitcoin_block?height=7', Buffer.from([1, 2, 3]), {
      'content-type': 'application/octet-stream',
    });
    expect(res.status).toBe(200);
    expect(producer.published[0]!.topic).toBe('bitcoin.blocks');
    expect(decodeEnvelope(producer.published[0]!.message.value).body).toEqual({ block_height: 7, raw_block: '010203' });
    const missing = await call(port, 'POST', '/new_bitcoin_block', Buffer.from([1]), {
      'content-type': 'application/octet-stream',
    });
    expect(missing.status).toBe(400);
    expect(missing.body!.message).toMatch(/height/);
  });

  it('serves health on GET and answers 405 JSON to other methods', async () => {
    expect((await call(port, 'GET', '/healthz')).status).toBe(200);
    expect(await call(port, 'PUT', '/new_block', '{}')).toMatchObject({ status: 405, body: { error: 'method_not_allowed' } });
  });
});

describe('parseByteSize', () => {
  it('reads units and plain numbers, and refuses anything else', () => {
    expect(parseByteSize('512mb')).toBe(512 * 1024 * 1024);
    expect(parseByteSize('100KB')).toBe(102_400);
    expect(parseByteSize('1048576')).toBe(1_048_576);
    expect(() => parseByteSize('lots')).toThrow(/not a byte size/);
  });
});

describe('createReceiveClock', () => {
  it('stamps events received within one millisecond with distinct, increasing times', () => {
    let wall = 1_000;
    const clock = createReceiveClock(() => wall);
    expect([clock(), clock(), clock()]).toEqual([1_000, 1_001, 1_002]);
    wall = 1_010;
    expect(clock()).toBe(1_010);
  });

  it('never goes back when the wall clock does', () => {
    let wall = 5_000;
    const clock = createReceiveClock(() => wall);
    expect(clock()).toBe(5_000);
    wall = 4_000;
    expect(clock()).toBe(5_001);
  });

  it('gives envelopes posted back to back distinct receive times', async () => {
    const stamps = Array.from({ length: 50 }, createReceiveClock());
    expect(new Set(stamps).size).toBe(50);
  });
});
