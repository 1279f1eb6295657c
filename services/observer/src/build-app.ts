import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import { z } from 'zod';
import { accessLog, errorMiddleware, healthRouter, InputError, requestId, sendError, ServiceUnavailableError } from '@bda/common';
import { BusUnavailableError, encodeEnvelope, TOPICS, type BusProducer } from '@bda/bus';
import { describeIssues, newBitcoinBlockSchema, NODE_EVENT_SCHEMAS } from './payload-schemas';

export interface ObserverDeps {
  producer: BusProducer;
  logger: Logger;
  metrics: Registry;
  bodyLimit: string;
  /** Prefix prepended to topic names. */
  topicPrefix?: string;
  isShuttingDown: () => boolean;
}

/**
 * The event observer: a Stacks node POSTs its events here, Bitcoin blocks arrive on
 * `/new_bitcoin_block`. Every accepted request is durable on the bus before the 200 goes out;
 * while the bus cannot take it the answer is 503 and the node retries.
 */
export function buildApp(deps: ObserverDeps): Express {
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
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  });

  const topic = (name: string) => `${deps.topicPrefix ?? ''}${name}`;
  // The node sends one request at a time; a queue keeps bus order = arrival order even if
  // several senders post concurrently.
  let tail: Promise<unknown> = Promise.resolve();
  const publishInOrder = (t: string, key: string, value: Buffer): Promise<void> => {
    const next = tail.then(() => producer.publish(t, [{ key, value }]));
    tail = next.catch(() => {});
    return next;
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(
    healthRouter({
      isReady: () => producer.isHealthy(),
      isShuttingDown: deps.isShuttingDown,
      metrics,
    }),
  );
  app.use(accessLog(logger));
  app.use(express.raw({ type: () => true, limit: deps.bodyLimit }));

  const publish = async (req: Request, res: Response, busTopic: string, key: string, body: Buffer) => {
    const stop = publishSeconds.startTimer();
    try {
      await publishInOrder(topic(busTopic), key, encodeEnvelope(req.path, new Date(), body));
    } catch (err) {
      if (err instanceof BusUnavailableError) throw new ServiceUnavailableError(`the event bus is unavailable: ${err.message}`);
      throw err;
    } finally {
      stop();
    }
    received.inc({ path: knownPathLabel(req.path) });
    res.status(200).json({ result: 'ok' });
  };

  app.post('/new_bitcoin_block', async (req, res) => {
    const raw = bodyBuffer(req);
    let body: Buffer;
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('application/octet-stream')) {
      // Raw serialized block bytes, the height in `?height=`.
      const height = z.coerce.number().int().nonnegative().safeParse(req.query.height);
      if (!height.success)
        throw new InputError('query parameter height: a block height (non-negative integer) is required with a raw block body');
      if (raw.length === 0) throw new InputError('body: the serialized block is empty');
      body = Buffer.from(JSON.stringify({ block_height: height.data, raw_block: raw.toString('hex') }));
    } else {
      const parsed = newBitcoinBlockSchema.safeParse(parseJson(raw));
      if (!parsed.success) throw new InputError(`body: ${describeIssues(parsed.error)}`);
      body = raw;
    }
    await publish(req, res, TOPICS.bitcoinBlocks, 'bitcoin', body);
  });

  app.post('/*splat', async (req, res) => {
    const raw = bodyBuffer(req);
    const schema = NODE_EVENT_SCHEMAS[req.path];
    let body: Buffer;
    if (schema) {
      const parsed = schema.safeParse(parseJson(raw));
      if (!parsed.success) throw new InputError(`body of ${req.path}: ${describeIssues(parsed.error)}`);
      body = raw;
    } else {
      // A path a newer node may add: accept and keep it raw, so the node never stalls on us.
      body = isJson(raw) ? raw : Buffer.from(JSON.stringify(raw.toString('utf8')));
      logger.warn({ path: req.path, bytes: raw.length }, 'unknown observer path stored raw');
    }
    await publish(req, res, TOPICS.stacksNodeEvents, 'stacks', body);
  });

  app.use((req, res) => {
    rejected.inc({ path: 'other', status: '405' });
    sendError(res, 405, 'method_not_allowed', `the observer takes POST requests; got ${req.method} ${req.path}`);
  });
  app.use(countRejections(rejected));
  app.use(errorMiddleware(logger));
  return app;
}

const KNOWN = new Set([...Object.keys(NODE_EVENT_SCHEMAS), '/new_bitcoin_block']);
function knownPathLabel(path: string): string {
  return KNOWN.has(path) ? path : 'other';
}

function countRejections(rejected: Counter<'path' | 'status'>): express.ErrorRequestHandler {
  return (err, req, _res, next) => {
    const status = (err as { status?: number }).status ?? 500;
    rejected.inc({ path: knownPathLabel(req.path), status: String(status) });
    next(err);
  };
}

function bodyBuffer(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw new InputError('body: a JSON body is required');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new InputError(`body: not valid JSON (${(err as Error).message})`);
  }
}

function isJson(raw: Buffer): boolean {
  if (raw.length === 0) return false;
  try {
    JSON.parse(raw.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}
