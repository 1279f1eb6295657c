import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import {
  accessLog,
  errorMiddleware,
  healthRouter,
  notFoundHandler,
  requestId,
  requestLog,
  type AccessSink,
  type RequestLog,
} from '@bda/common';
import { isDbReachable } from '@bda/db';
import { DEFAULT_PAGE_LIMITS, type PageLimits } from './env';
import { LatestDataEpoch, readDataEpoch } from './datastore/data-epoch';
import { dbErrorMiddleware } from './db-errors';
import { bundleOpenApi, loadSchemaSources } from './openapi';
import { chainRouter, chainRoutes, type RouteContext } from './chain';
import { docsRouter } from './docs-router';
import { methodNotAllowed, namedDecodeErrors } from './method-not-allowed';
import { pathTemplates } from './path-templates';
import { expressRouter, type GetRoute, plainRoutes } from './plain-routes';
import { knexRunesDb, runesRoutes, type RunesDb } from './runes';
import { knexNamesDb, nameLookupRoutes, nameRoutes, pooledNamesDb } from './names';
import { accountLookupRoutes, accountRoutes } from './accounts';
import { contractRoutes } from './contracts';
import { searchRoutes } from './search';
import { poxRoutes } from './pox';
import { DEFAULT_ROSETTA_OPTIONS, rosettaRouter, type RosettaOptions } from './rosetta';
import { SERVER_VERSION } from './version';

export interface ApiDeps {
  /** Read-only access to the indexer's database (may be a replica). */
  db: Knex;
  /** Where the `/runes/v1` reads run (the api process: their own pool, see `createRunesDb`); `db` when omitted. */
  runesDb?: RunesDb;
  /** Where `/v1/names/{name}` and `/v1/addresses/…` run (the api process: a pool of their own, `createRunesDb`); `db` when omitted. */
  namesDb?: RunesDb;
  logger: Logger;
  metrics: Registry;
  /** True once shutdown started: readiness turns 503. */
  isShuttingDown: () => boolean;
  /** Page-size rules; the reference API's when omitted. */
  pageLimits?: PageLimits;
  /** Directory holding `openapi.json` and `components/`; the repository's `schemas/` when omitted. */
  schemasDir?: string;
  /** `server_version` of `GET /extended`. */
  serverVersion?: string;
  /** The `/metrics` text when it is not `metrics` alone (a cluster worker answers for every worker). */
  metricsText?: () => Promise<string>;
  /** `/rosetta/v1` settings (offline mode, network, node RPC URLs); online, network from the chain, no node when omitted. */
  rosetta?: RosettaOptions;
  /**
   * Where the access lines go, built by hand (the process: an `AccessWriter` on stdout, ADR 0029); through `logger` when
   * omitted.
   */
  accessSink?: AccessSink;
  /** Whether identical GETs of one event-loop turn share an answer (`SameTurnAnswers`, ADR 0033); true when omitted. */
  shareAnswers?: boolean;
}

type DurationHistogram = Histogram<'method' | 'route' | 'status'>;

function durationHistogram(metrics: Registry): DurationHistogram {
  return new Histogram({
    name: 'api_http_request_duration_seconds',
    help: 'HTTP request duration by route template, method and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  });
}

function httpMetrics(duration: DurationHistogram): RequestHandler {
  return (req, res, next) => {
    const stop = duration.startTimer();
    res.on('finish', () => {
      // The route template, never the raw path: a label per address or tx id would explode the series.
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      stop({ method: req.method, route: String(route), status: String(res.statusCode) });
    });
    next();
  };
}

/**
 * The api's express app, not listening. Chain reads are read-only queries over the indexer's read models; every
 * error is `{error, message}` JSON; unknown routes are 404 JSON.
 */
export function buildApp(deps: ApiDeps): Express {
  return createApp(deps, durationHistogram(deps.metrics), familyRoutes(deps), accessLogOf(deps));
}

/** The families' GET endpoints, built once (their batch loaders are shared by the plain and the express mounting). */
interface FamilyRoutes {
  ctx: RouteContext;
  /** The chain family's GET endpoints (`chainRoutes`; express adds its POST). */
  chain: GetRoute[];
  /** Every other family's, in matching order: runes, names, accounts, contracts, search, PoX. */
  rest: GetRoute[];
}

function familyRoutes(deps: ApiDeps): FamilyRoutes {
  const limits = deps.pageLimits ?? DEFAULT_PAGE_LIMITS;
  const ctx: RouteContext = { db: deps.db, limits, serverVersion: deps.serverVersion ?? SERVER_VERSION };
  const nameLookups = nameLookupRoutes(deps.namesDb ? pooledNamesDb(deps.namesDb) : knexNamesDb(deps.db));
  return {
    ctx,
    chain: chainRoutes(ctx),
    rest: [
      ...runesRoutes({ db: deps.runesDb ?? knexRunesDb(deps.db), limits: deps.pageLimits?.runes }),
      ...nameRoutes(deps.db, nameLookups),
      ...accountRoutes(deps.db, limits, accountLookupRoutes(deps.db)),
      ...contractRoutes(deps.db),
      ...searchRoutes(deps.db),
      ...poxRoutes(deps.db),
    ],
  };
}

/** Every GET endpoint the api serves on plain node:http, in matching order (see `buildRequestListener`). */
export function apiGetRoutes(deps: ApiDeps): GetRoute[] {
  return plainList(familyRoutes(deps));
}

function plainList(families: FamilyRoutes): GetRoute[] {
  return [...families.chain, ...families.rest];
}

/**
 * The api's request listener (what the process serves): every family's GET endpoints on plain node:http, in the
 * order express would match them (see `read-routes.ts`, ADR 0030: express costs more CPU per request than most of
 * those reads); everything else (other methods, Rosetta, docs, health, metrics, unknown paths) through the express
 * app of `buildApp`.
 */
export function buildRequestListener(deps: ApiDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const duration = durationHistogram(deps.metrics);
  const families = familyRoutes(deps);
  const log = accessLogOf(deps);
  const app = createApp(deps, duration, families, log);
  const shared = new Counter({
    name: 'api_http_shared_answers_total',
    help: 'GET requests answered with the answer of an identical request of the same event-loop turn',
    registers: [deps.metrics],
  });
  const epoch = new LatestDataEpoch(() => readDataEpoch(deps.db));
  const plain = plainRoutes(plainList(families), {
    logger: deps.logger,
    log,
    duration,
    shared: deps.shareAnswers === false ? undefined : shared,
    dataEpoch: () => epoch.current(),
  });
  return (req, res) => {
    if (!plain(req, res)) app(req, res);
  };
}

function accessLogOf(deps: ApiDeps): RequestLog {
  return requestLog(deps.logger, 'api', deps.accessSink);
}

function createApp(deps: ApiDeps, duration: DurationHistogram, families: FamilyRoutes, log: RequestLog): Express {
  const limits = deps.pageLimits ?? DEFAULT_PAGE_LIMITS;
  const document = bundleOpenApi(loadSchemaSources(deps.schemasDir), limits);

  const app = express();
  app.disable('x-powered-by');
  // ETags are set explicitly from the chain tip (see http-cache.ts); no hashing of every body.
  app.set('etag', false);
  // `?a=1&a=2` → array (rejected as repeated), no nested objects.
  app.set('query parser', 'simple');
  app.use(requestId());
  const metricsText = deps.metricsText;
  if (metricsText) {
    app.get('/metrics', async (_req, res) => {
      res.set('content-type', deps.metrics.contentType).send(await metricsText());
    });
  }
  app.use(
    healthRouter({
      isReady: () => isDbReachable(deps.db),
      isShuttingDown: deps.isShuttingDown,
      metrics: deps.metrics,
    }),
  );
  app.use(accessLog(log));
  app.use(httpMetrics(duration));
  app.use((_req, res, next) => {
    // Default for everything (errors included); chain reads replace it with a tip-validated policy.
    res.set('Cache-Control', 'no-store');
    next();
  });
  // Rosetta answers every failure itself (HTTP 500 with a Rosetta Error, never a 4xx), so it comes before the others.
  app.use('/rosetta', rosettaRouter({ db: deps.db, logger: deps.logger, options: deps.rosetta ?? DEFAULT_ROSETTA_OPTIONS }));
  app.use(docsRouter(document));
  app.use(chainRouter(families.ctx, families.chain));
  app.use(expressRouter(families.rest));
  // The documented paths, for a method they do not take and for naming an undecodable parameter.
  const templates = pathTemplates(document);
  app.use(methodNotAllowed(templates));
  app.use(notFoundHandler());
  app.use(namedDecodeErrors(templates));
  app.use(dbErrorMiddleware(deps.logger));
  app.use(errorMiddleware(deps.logger));
  return app;
}
