import type { RequestListener } from 'node:http';
import express from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { accessLog, errorMiddleware, healthRouter, requestId, requestLog, sendError, type BodyPace } from '@bda/common';
import type { BusProducer } from '@bda/bus';
import { eventIntake, parseByteSize } from './event-intake';
import type { IndexerPacer } from './indexer-pacer';
import type { PeerAllowList } from './peer-allow-list';

export interface ObserverDeps {
  producer: BusProducer;
  logger: Logger;
  metrics: Registry;
  /** Largest accepted body, e.g. `512mb`. */
  bodyLimit: string;
  isShuttingDown: () => boolean;
  /** Bounded staleness (ADR 0015); none: every POST is answered as soon as its event is durable. */
  pacer?: IndexerPacer;
  /** Who may POST (`OBSERVER_ALLOWED_CIDRS`; ADR 0019); others get 403 before their body is read. None: anyone. */
  allowedPeers?: PeerAllowList;
  /** Slowest accepted body; slower ones get 408 and the connection is closed. None: no limit. */
  bodyPace?: BodyPace;
  /** Largest inflated/compressed size ratio of a gzip or deflate body (413 beyond); default 100. */
  inflateMaxRatio?: number;
}

/**
 * The event observer: a Stacks node POSTs its events here, Bitcoin blocks arrive on `/new_bitcoin_block`. Every
 * accepted request is durable on the bus before the 200 goes out; while the bus cannot take it the answer is 503
 * and the node retries. POSTs take the lean path of `eventIntake`; everything else (health, readiness, metrics, and
 * 405 for other methods) is a small express app. Only POSTs are checked against `allowedPeers`: health and metrics
 * stay open to the probes of the platform, and change nothing.
 */
export function buildApp(deps: ObserverDeps): RequestListener {
  const { producer, logger, metrics } = deps;
  const intake = eventIntake({
    producer,
    logger,
    metrics,
    bodyLimitBytes: parseByteSize(deps.bodyLimit),
    pacer: deps.pacer,
    allowedPeers: deps.allowedPeers,
    bodyPace: deps.bodyPace,
    inflateMaxRatio: deps.inflateMaxRatio,
  });

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
  app.use(accessLog(requestLog(logger, 'observer')));
  app.use((req, res) => {
    sendError(res, 405, 'method_not_allowed', `the observer takes POST requests; got ${req.method} ${req.path}`);
  });
  app.use(errorMiddleware(logger));

  return (req, res) => {
    if (req.method === 'POST') intake(req, res);
    else app(req, res);
  };
}
