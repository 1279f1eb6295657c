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
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { Histogram } from 'prom-client';
import { AppError, resolveRequestId, toErrorAnswer } from '@bda/common';
import { translateDbError } from './db-errors';
import { undecodableParamMessage } from './path-templates';

export interface GetRoute {
  /** Express path: literal segments and `:name` parameters; also the `route` label of the duration histogram. */
  path: string;
  /**
   * The 200 answer: its JSON text, or the text with headers and a validator; throws an `AppError` (or a database
   * error) for anything else.
   */
  handle(params: Record<string, string>, query: ParsedUrlQuery): Promise<string | GetAnswer>;
}

/** A 200 answer with more than its body. */
export interface GetAnswer {
  /** The JSON text. */
  body: string;
  /** Headers of the answer (`Warning` of a deprecated operation…). */
  headers?: Readonly<Record<string, string>>;
  /**
   * The answer's version (a chain read's tip, `chainTipETag`): sent as `ETag` with `Cache-Control: public, no-cache`
   * instead of `no-store`, and a request whose `If-None-Match` still names it gets a 304 without the body.
   */
  etag?: string;
}

/** The routes as an express router (same handlers), for apps that mount them among other express routes. */
export function expressRouter(routes: readonly GetRoute[]): Router {
  const router = express.Router();
  for (const route of routes) {
    router.get(route.path, async (req, res) => {
      const answer = await route.handle(req.params as Record<string, string>, req.query as ParsedUrlQuery);
      if (typeof answer === 'string') {
        res.type('application/json').send(answer);
        return;
      }
      if (answer.headers) res.set(answer.headers);
      if (answer.etag !== undefined) {
        res.set('ETag', answer.etag).set('Cache-Control', REVALIDATE);
        if (isFresh(req.headers, answer.etag)) {
          res.status(304).end();
          return;
        }
      }
      res.type('application/json').send(answer.body);
    });
  }
  return router;
}

/** The cache policy of an answer with a validator: clients may keep it, and must ask whether it is still current. */
const REVALIDATE = 'public, no-cache';

/**
 * Whether the client's copy is current (RFC 9110 §13.1.2, as express's `req.fresh` decides for a GET without
 * `Last-Modified`): `If-None-Match` is `*` or lists `etag` (weak comparison), and the request does not ask past
 * caches with `Cache-Control: no-cache`.
 */
export function isFresh(headers: IncomingHttpHeaders, etag: string): boolean {
  const header = headers['if-none-match'];
  if (!header) return false;
  const cacheControl = headers['cache-control'];
  if (cacheControl && /(?:^|,)\s*no-cache\s*(?:,|$)/.test(cacheControl)) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const ours = opaque(etag);
  return header.split(',').some((tag) => opaque(tag.trim()) === ours);
}

export interface PlainRouteOptions {
  logger: Logger;
  /** The api's `api_http_request_duration_seconds` (labels method, route, status). */
  duration: Histogram<'method' | 'route' | 'status'>;
}

interface Compiled {
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

/**
 * A request listener for the routes: returns false (touching nothing) when the request is not a GET/HEAD of one
 * of them, so the caller can hand it to express.
 */
export function plainRoutes(
  routes: readonly GetRoute[],
  opts: PlainRouteOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const compiled = routes.map(compile);
  // Every route here starts with one of these: a cheap test before the regular expressions.
  const prefixes = [...new Set(routes.map((r) => r.path.split('/')[1]!.toLowerCase()))].map((p) => `/${p}`);
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const lower = path.slice(0, 32).toLowerCase();
    if (!prefixes.some((p) => lower.startsWith(p))) return false;
    for (const c of compiled) {
      const m = c.re.exec(path);
      if (!m) continue;
      serve(req, res, c, m, q === -1 ? '' : url.slice(q + 1), path, opts);
      return true;
    }
    return false;
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
): void {
  const started = process.hrtime.bigint();
  const id = resolveRequestId(req.headers['x-request-id']);
  req.headers['x-request-id'] = id;
  res.setHeader('x-request-id', id);
  res.setHeader('Cache-Control', 'no-store');
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    opts.duration.observe({ method: req.method, route: c.route.path, status: String(res.statusCode) }, seconds);
    opts.logger.info(
      { reqId: id, method: req.method, path, status: res.statusCode, ms: Math.round(seconds * 100_000) / 100 },
      'request',
    );
  });
  let answer: Promise<string | GetAnswer>;
  try {
    const params: Record<string, string> = {};
    for (let i = 0; i < c.names.length; i++) params[c.names[i]!] = decodeParam(c.names[i]!, m[i + 1]!);
    answer = c.route.handle(params, parseQuery(search));
  } catch (err) {
    answer = Promise.reject(err);
  }
  answer.then(
    (a) => {
      if (typeof a === 'string') return writeJson(res, 200, a);
      if (a.etag === undefined) return writeJson(res, 200, a.body, a.headers);
      const headers = { ...a.headers, ETag: a.etag, 'Cache-Control': REVALIDATE };
      if (isFresh(req.headers, a.etag)) return writeNotModified(res, headers);
      writeJson(res, 200, a.body, headers);
    },
    (err: unknown) => writeError(req, res, path, err, opts.logger),
  );
}

function writeNotModified(res: ServerResponse, headers: Record<string, string>): void {
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

function writeJson(res: ServerResponse, status: number, text: string, headers?: Readonly<Record<string, string>>): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

function writeError(req: IncomingMessage, res: ServerResponse, path: string, err: unknown, logger: Logger): void {
  const translated = translateDbError(err);
  if (translated !== err) logger.warn({ err, method: req.method, path }, 'database unavailable');
  const answer = toErrorAnswer(translated);
  if (answer.unexpected) logger.error({ err: translated, method: req.method, path }, 'unhandled error');
  writeJson(res, answer.status, JSON.stringify(answer.body), answer.headers);
}
