import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip as gunzipCb, inflate as inflateCb } from 'node:zlib';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import {
  DRAIN_LIMIT_BYTES,
  InputError,
  PayloadTooLargeError,
  readBody,
  RequestTimeoutError,
  ServiceUnavailableError,
  toErrorAnswer,
  type BodyPace,
} from '@bda/common';
import { BusRecordRejectedError, BusUnavailableError, encodeEnvelope, type BusProducer } from '@bda/bus';
import { checkNodeEvent } from './check-node-event';
import type { IndexerPacer } from './indexer-pacer';
import { PeerNotAllowedError } from './intake-errors';
import { NODE_EVENT_SCHEMAS } from './payload-schemas';
import type { PeerAllowList } from './peer-allow-list';

const gunzip = promisify(gunzipCb);
const inflate = promisify(inflateCb);

export interface EventIntakeDeps {
  producer: BusProducer;
  logger: Logger;
  metrics: Registry;
  /** Largest accepted body in bytes (after decompression). */
  bodyLimitBytes: number;
  /** Bounded staleness: holds the answer while the indexer trails (ADR 0015). None: answer once durable. */
  pacer?: IndexerPacer;
  /** Peers that may post (`OBSERVER_ALLOWED_CIDRS`); anyone else gets 403 before the body is read. None: everyone. */
  allowedPeers?: PeerAllowList;
  /** Slowest accepted body (`OBSERVER_BODY_GRACE_MS`, `OBSERVER_BODY_MIN_RATE`); slower: 408. None: no limit. */
  bodyPace?: BodyPace;
  /** Largest inflated size of a gzip or deflate body as a multiple of its compressed size (past 1 MiB): 413 beyond. */
  inflateMaxRatio?: number;
}

/** A compressed body may always inflate to this much, whatever its ratio: small bodies compress well, harmlessly. */
const INFLATE_RATIO_FLOOR_BYTES = 1024 * 1024;
/** `inflateMaxRatio` when none is given; real node events compress 3 to 12 times (the recorded fixtures). */
const DEFAULT_INFLATE_MAX_RATIO = 100;

/** What the node is told for each accepted event. */
const OK_BODY = Buffer.from('{"result":"ok"}');
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KNOWN = new Set([...Object.keys(NODE_EVENT_SCHEMAS), '/new_bitcoin_block']);

/**
 * The POST side of the observer as a plain `node:http` handler: a node sends one event at a time and waits for the
 * answer, so whatever stands between its request and the bus acknowledgement is paid on every event. This path
 * reads the body, checks it, publishes it in arrival order, and answers, with nothing else in between (express's
 * router, body parser and response helpers cost about as much as the check and the envelope together).
 * Error bodies have the shape of every other service (`{error, message}`); every request gets an `x-request-id`
 * and one access-log line.
 */
export function eventIntake(deps: EventIntakeDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { producer, logger, metrics } = deps;
  const received = new Counter({
    name: 'observer_events_received_total',
    help: 'Events accepted and made durable on the bus, by path',
    labelNames: ['path'],
    registers: [metrics],
  });
  const rejected = new Counter({
    name: 'observer_events_rejected_total',
    help: 'Requests refused, by path and status',
    labelNames: ['path', 'status'],
    registers: [metrics],
  });
  const publishSeconds = new Histogram({
    name: 'observer_publish_seconds',
    help: 'Time to make one event durable on the bus',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  });
  const receiveClock = createReceiveClock();
  // The node sends one request at a time; a queue keeps bus order = arrival order even if several senders post
  // concurrently.
  let tail: Promise<unknown> = Promise.resolve();
  const publishInOrder = (t: string, key: string, value: Buffer): Promise<void> => {
    const next = tail.then(() => producer.publish(t, [{ key, value }]));
    tail = next.catch(() => {});
    return next;
  };

  const accept = async (req: IncomingMessage, path: string, query: string): Promise<void> => {
    const peer = req.socket.remoteAddress;
    if (deps.allowedPeers && !deps.allowedPeers.allows(peer)) {
      throw new PeerNotAllowedError(`${peer ?? 'this peer'} may not post events here (OBSERVER_ALLOWED_CIDRS)`);
    }
    const raw = await readRequestBody(req, {
      limit: deps.bodyLimitBytes,
      pace: deps.bodyPace,
      maxRatio: deps.inflateMaxRatio ?? DEFAULT_INFLATE_MAX_RATIO,
    });
    const checked = checkNodeEvent(path, raw, { query, contentType: req.headers['content-type'] });
    if (!checked.known) logger.warn({ path, bytes: raw.length }, 'unknown observer path stored raw');
    const stop = publishSeconds.startTimer();
    const receivedAt = new Date(receiveClock());
    try {
      await publishInOrder(checked.topic, checked.key, encodeEnvelope(path, receivedAt, checked.body));
    } catch (err) {
      if (err instanceof BusUnavailableError) throw new ServiceUnavailableError(`the event bus is unavailable: ${err.message}`);
      if (err instanceof BusRecordRejectedError && /TOO_LARGE/.test(err.reason)) {
        throw new PayloadTooLargeError(`the event bus refused the event as too large (${err.reason})`);
      }
      throw err;
    } finally {
      stop();
    }
    // Durable from here on: the 200 is owed whatever happens next, and the pacer only decides when it goes out.
    await deps.pacer?.afterPublish(checked.topic, receivedAt.getTime());
  };

  return (req, res) => {
    const start = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const reqId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const label = KNOWN.has(path) ? path : 'other';
    res.setHeader('x-request-id', reqId);
    res.once('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      logger.info({ reqId, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
    });
    accept(req, path, q === -1 ? '' : url.slice(q + 1)).then(
      () => {
        received.inc({ path: label });
        send(res, 200, OK_BODY);
      },
      (err: unknown) => {
        const { status, body, unexpected } = toErrorAnswer(err);
        if (unexpected) logger.error({ err, path }, 'unhandled error');
        if (err instanceof PeerNotAllowedError) logger.warn({ peer: req.socket.remoteAddress, path }, 'peer not allowed');
        rejected.inc({ path: label, status: String(status) });
        // A body we stopped reading half-way: close the connection rather than read the rest of it.
        if (!req.complete) res.setHeader('connection', 'close');
        send(res, status, Buffer.from(JSON.stringify(body)));
      },
    );
  };
}

/**
 * Receive times for envelopes: the wall clock in ms, but never the same value twice and never going back. The pacer
 * (ADR 0015) tells applied events from pending ones by their receive time; two events stamped in the same millisecond
 * would be one to it, and a POST could be answered while its own event was still waiting. A node waits for each
 * answer, so consecutive events are a millisecond or more apart anyway; only a burst of concurrent senders moves the
 * stamps ahead of the clock, by at most a millisecond an event beyond a thousand a second.
 */
export function createReceiveClock(now: () => number = Date.now): () => number {
  let last = -Infinity;
  return () => {
    last = Math.max(now(), last + 1);
    return last;
  };
}

function send(res: ServerResponse, status: number, body: Buffer): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
}

/**
 * The body, decompressed when the sender said so, refused with 413 beyond `limit` bytes. A refused body is read to its
 * end first (up to `DRAIN_LIMIT_BYTES`), so that a client still sending it gets the 413 rather than a broken pipe.
 * A body arriving slower than `pace` allows is 408. A compressed body inflates to at most `limit` bytes and at most
 * `maxRatio` times its own size (or `INFLATE_RATIO_FLOOR_BYTES`): zlib stops there, so a small body that would
 * inflate to gigabytes costs no more memory than the bound.
 */
async function readRequestBody(
  req: IncomingMessage,
  opts: { limit: number; pace?: BodyPace; maxRatio: number },
): Promise<Buffer> {
  const { limit } = opts;
  const tooLarge = () => new PayloadTooLargeError(`request body exceeds the limit of ${limit} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    if (declared <= DRAIN_LIMIT_BYTES) await readBody(req, 0);
    throw tooLarge();
  }
  const raw = opts.pace ? await readBody(req, limit, DRAIN_LIMIT_BYTES, opts.pace) : await readBody(req, limit);
  if (raw === 'too_large') throw tooLarge();
  if (raw === 'aborted') throw new InputError('the client aborted the request body');
  if (raw === 'too_slow') {
    throw new RequestTimeoutError(
      `the body arrived slower than ${opts.pace!.minBytesPerSecond} bytes a second after ${opts.pace!.graceMs} ms`,
    );
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return raw;
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    throw new InputError(`content-encoding ${JSON.stringify(encoding)} is not supported (gzip, deflate or none)`);
  }
  const byRatio = Math.max(raw.length * opts.maxRatio, INFLATE_RATIO_FLOOR_BYTES);
  try {
    return await (encoding === 'gzip' ? gunzip : inflate)(raw, { maxOutputLength: Math.min(limit, byRatio) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      if (byRatio < limit) {
        throw new PayloadTooLargeError(
          `the ${encoding} body of ${raw.length} bytes inflates to more than ${opts.maxRatio} times its size`,
        );
      }
      throw tooLarge();
    }
    throw new InputError(`body: not valid ${encoding} data`);
  }
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `512mb`, `100kb`, `1gb` or a plain number of bytes. */
export function parseByteSize(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!m) throw new Error(`not a byte size: ${JSON.stringify(value)} (e.g. 512mb, 100kb, 1048576)`);
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]!);
}
