/**
 * GET routes served straight on node:http, ahead of express (as the gateway serves its proxied paths).
 *
 * Why: express costs about 160 µs of CPU per request (measured: an express app with nothing but the route against
 * the same handler on plain node:http, `bench/runes/activity.ts`), more than the database work of a `/runes/v1`
 * page; on the benchmark's two cores that alone kept the block activity endpoint under its bar.
 *
 * What stays the same: each route is one handler shared with its express mounting (`expressRouter`), matched like
 * express matches it (literal segments case-insensitive, one optional trailing slash, `:param` = one path segment,
 * percent-decoded, undecodable → 400), with the query parsed by express's `simple` parser (node:querystring). The
 * answer carries what the api's middleware gives every answer: `x-request-id` (the client's if sane, else a new
 * one), `Cache-Control: no-store`, one access-log line and one observation of the request-duration histogram with the
 * route template as label. Errors get the api's error bodies: database trouble → 503/504 (`translateDbError`), an
 * `AppError` → its status, anything else → 500, logged.
 *
 * The data epoch (ADR 0048): a request with `x-bda-want-data-epoch: 1` (the gateway's) gets, in `x-bda-data-epoch`
 * (its 304s and errors too), an epoch the database had reached before its route runs (`LatestDataEpoch`): the
 * route's statements start after that read, so the answer is at least as new as the epoch it carries.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { Counter, Histogram } from 'prom-client';
import { AppError, resolveRequestId, toErrorAnswer, type RequestLog } from '@bda/common';
import { translateDbError } from './db-errors';
import { SameTurnAnswers } from './same-turn-answers';
import { undecodableParamMessage } from './path-templates';

export interface GetRoute {
  /** Express path: literal segments and `:name` parameters; also the `route` label of the duration histogram. */
  path: string;
  /**
   * The answer: its JSON text (a 200), or an answer with a status, headers, a validator; throws an `AppError` (or a
   * database error) for a failure. A function of the request target, the database, and of the headers only
   * `If-None-Match` and `Cache-Control`: identical requests of one event-loop turn share it (`SameTurnAnswers`).
   */
  handle(params: Record<string, string>, query: ParsedUrlQuery, headers: IncomingHttpHeaders): Promise<string | GetAnswer>;
  /**
   * false: the answer depends on more than the above (the clock), so it never carries a data epoch (ADR 0048) and the
   * gateway never keeps it.
   */
  dataEpoch?: false;
}

/** An answer with more than a JSON body. */
export interface GetAnswer {
  /**
   * The body (empty for a 304): a string; its UTF-8 bytes (written as they are); or the strings it is the concatenation
   * of (a kept text spliced into a large answer), written one after the other in one socket write without being joined
   * first.
   */
  body: string | Buffer | readonly string[];
  /** 200 when absent; 304 (no body) when `respondNotModifiedIfFresh` found the client's copy current. */
  status?: number;
  /** `application/json; charset=utf-8` when absent; `''` for none (an answer without a body). */
  contentType?: string;
  /** Headers of the answer (`Warning` of a deprecated operation, a validator and its `Cache-Control`…). */
  headers?: Readonly<Record<string, string>>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** The request header by which the gateway asks for an answer's data epoch (value `1`), and the answer's (ADR 0048). */
const WANT_DATA_EPOCH = 'x-bda-want-data-epoch';
const DATA_EPOCH = 'x-bda-data-epoch';

/** The routes as an express router (same handlers), for apps that mount them among other express routes. */
export function expressRouter(routes: readonly GetRoute[]): Router {
  const router = express.Router();
  for (const route of routes) {
    router.get(route.path, async (req, res) => {
      const handled = await route.handle(req.params as Record<string, string>, req.query as ParsedUrlQuery, req.headers);
      if (typeof handled === 'string') {
        res.type('application/json').send(handled);
        return;
      }
      const answer = Array.isArray(handled.body) ? { ...handled, body: handled.body.join('') } : handled;
      const status = answer.status ?? 200;
      res.status(status).set(answer.headers ?? {});
      if (status === 304) {
        res.end();
        return;
      }
      const type = answer.contentType ?? JSON_TYPE;
      if (!type) {
        res.end(answer.body);
        return;
      }
      res.set('Content-Type', type).send(answer.body);
    });
  }
  return router;
}

export interface PlainRouteOptions {
  /** Warnings and errors. */
  logger: Logger;
  /** The access lines. */
  log: RequestLog;
  /** The api's `api_http_request_duration_seconds` (labels method, route, status). */
  duration: Histogram<'method' | 'route' | 'status'>;
  /**
   * Identical requests of one event-loop turn share an answer (`SameTurnAnswers`), counted here; each request is
   * answered on its own when absent.
   */
  shared?: Counter;
  /**
   * For requests that ask (`x-bda-want-data-epoch: 1`, ADR 0048): a `data_epoch.epoch` (decimal) the database had
   * reached before this call (`LatestDataEpoch`), or undefined (the answer then goes without one). None: no answer
   * carries an epoch.
   */
  dataEpoch?: () => string | undefined;
}

export interface Compiled {
  route: GetRoute;
  re: RegExp;
  names: string[];
}

/** `/a/:b/c` → `^/a/([^/]+)/c/?$` (case-insensitive), as path-to-regexp compiles it for express's router. */
function compile(route: GetRoute): Compiled {
  const names: string[] = [];
  const body = route.path
    .replace(/\/$/, '')
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, re: new RegExp(`^${body}/?$`, 'i'), names };
}

/** The first two segments of a path, lower-cased (`/extended/v1`): the routes that can match it share them. */
function bucketOf(rawPath: string): string {
  // One trailing slash is allowed, as express allows it.
  const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const second = path.indexOf('/', 1);
  if (second === -1) return path.toLowerCase();
  const third = path.indexOf('/', second + 1);
  return (third === -1 ? path : path.slice(0, third)).toLowerCase();
}

/**
 * The first of `routes` (in their order, as express tries them) that matches a path, with the match; undefined when
 * none does. Routes are grouped by their first two segments, which are literals in every route here, so a path is
 * tried against its group only.
 */
export function routeMatcher(
  routes: readonly GetRoute[],
): (path: string) => { route: Compiled; match: RegExpExecArray } | undefined {
  const buckets = new Map<string, Compiled[]>();
  for (const route of routes) {
    const [, first, second] = route.path.split('/');
    if (first === undefined || first.startsWith(':') || second?.startsWith(':')) {
      throw new Error(`plain route ${route.path}: its first two segments must be literals`);
    }
    const key = bucketOf(route.path);
    const bucket = buckets.get(key) ?? [];
    bucket.push(compile(route));
    buckets.set(key, bucket);
  }
  return (path) => {
    const bucket = buckets.get(bucketOf(path));
    if (!bucket) return undefined;
    for (const c of bucket) {
      const match = c.re.exec(path);
      if (match) return { route: c, match };
    }
    return undefined;
  };
}

/**
 * A request listener for the routes: returns false (touching nothing) when the request is not a GET/HEAD of one
 * of them, so the caller can hand it to express.
 */
export function plainRoutes(
  routes: readonly GetRoute[],
  opts: PlainRouteOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const match = routeMatcher(routes);
  const counter = opts.shared;
  const sameTurn = counter ? new SameTurnAnswers<string | GetAnswer>(() => counter.inc()) : undefined;
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const found = match(path);
    if (!found) return false;
    serve(req, res, found.route, found.match, q === -1 ? '' : url.slice(q + 1), path, opts, sameTurn);
    return true;
  };
}

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  c: Compiled,
  m: RegExpExecArray,
  search: string,
  path: string,
  opts: PlainRouteOptions,
  sameTurn: SameTurnAnswers<string | GetAnswer> | undefined,
): void {
  const started = process.hrtime.bigint();
  const id = resolveRequestId(req.headers['x-request-id']);
  req.headers['x-request-id'] = id;
  res.setHeader('x-request-id', id);
  res.setHeader('Cache-Control', 'no-store');
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    opts.duration.observe({ method: req.method, route: c.route.path, status: String(res.statusCode) }, seconds);
    opts.log({ reqId: id, method: req.method, path, status: res.statusCode, ms: Math.round(seconds * 100_000) / 100 });
  });
  const handle = (): Promise<string | GetAnswer> => {
    try {
      const params: Record<string, string> = {};
      for (let i = 0; i < c.names.length; i++) params[c.names[i]!] = decodeParam(c.names[i]!, m[i + 1]!);
      return c.route.handle(params, parseQuery(search), req.headers);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const readEpoch = opts.dataEpoch;
  const wantsEpoch = readEpoch !== undefined && req.headers[WANT_DATA_EPOCH] === '1' && c.route.dataEpoch !== false;
  // The label is taken when the run starts, before the route's statements.
  const run = wantsEpoch ? () => withDataEpoch(readEpoch(), handle) : handle;
  // The answer depends on the request target and, of the headers, on those the 304 decision reads (http-cache.ts),
  // and on whether it carries the data epoch.
  const answer = sameTurn
    ? sameTurn.answer(
        `${req.url}\n${req.headers['if-none-match'] ?? ''}\n${req.headers['cache-control'] ?? ''}${wantsEpoch ? '\n1' : ''}`,
        run,
      )
    : run();
  answer.then(
    (a) => {
      if (typeof a === 'string') return writeBody(res, 200, JSON_TYPE, a);
      const status = a.status ?? 200;
      if (status === 304) return writeNotModified(res, a.headers ?? {});
      writeBody(res, status, a.contentType ?? JSON_TYPE, a.body, a.headers);
    },
    (err: unknown) =>
      err instanceof EpochedFailure
        ? writeError(req, res, path, err.cause, opts.logger, err.epoch)
        : writeError(req, res, path, err, opts.logger),
  );
}

/** A route's failure, with the data epoch read before the route ran (its error answer carries it). */
class EpochedFailure {
  constructor(
    readonly cause: unknown,
    readonly epoch: string,
  ) {}
}

/**
 * The route's answer labelled with `epoch`, a data epoch the database had reached before the route started (its
 * statements then read that epoch's data or newer). Undefined: the answer goes without it (the gateway does not keep
 * it).
 */
async function withDataEpoch(epoch: string | undefined, handle: () => Promise<string | GetAnswer>): Promise<string | GetAnswer> {
  if (epoch === undefined) return handle();
  let answer: string | GetAnswer;
  try {
    answer = await handle();
  } catch (err) {
    throw new EpochedFailure(err, epoch);
  }
  if (typeof answer === 'string') return { body: answer, headers: { [DATA_EPOCH]: epoch } };
  return { ...answer, headers: { ...answer.headers, [DATA_EPOCH]: epoch } };
}

function writeNotModified(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.statusCode = 304;
  res.end();
}

/** As express decodes a path parameter; an undecodable one is refused by name, as on the express routes. */
function decodeParam(name: string, value: string): string {
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ParamDecodeError(undecodableParamMessage(name, value));
  }
}

class ParamDecodeError extends AppError {
  readonly status = 400;
  readonly error = 'invalid_request';
}

function writeBody(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string | Buffer | readonly string[],
  headers?: Readonly<Record<string, string>>,
): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.statusCode = status;
  if (contentType) res.setHeader('Content-Type', contentType);
  if (typeof text === 'string' || Buffer.isBuffer(text)) {
    res.setHeader('Content-Length', typeof text === 'string' ? Buffer.byteLength(text) : text.length);
    res.end(text);
    return;
  }
  // The parts as they are: a 127 kB kept text spliced into one string was flattened (a copy) to count its bytes and
  // encoded again by the socket write; each part here is counted and encoded once, into the one corked write (`end`
  // uncorks).
  let length = 0;
  for (const part of text) length += Buffer.byteLength(part);
  res.setHeader('Content-Length', length);
  res.cork();
  for (const part of text) res.write(part);
  res.end();
}

function writeError(req: IncomingMessage, res: ServerResponse, path: string, err: unknown, logger: Logger, epoch?: string): void {
  const translated = translateDbError(err);
  if (translated !== err) logger.warn({ err, method: req.method, path }, 'database unavailable');
  const answer = toErrorAnswer(translated);
  if (answer.unexpected) logger.error({ err: translated, method: req.method, path }, 'unhandled error');
  const headers = epoch === undefined ? answer.headers : { ...answer.headers, [DATA_EPOCH]: epoch };
  writeBody(res, answer.status, JSON_TYPE, JSON.stringify(answer.body), headers);
}
