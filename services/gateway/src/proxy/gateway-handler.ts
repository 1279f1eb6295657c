import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { ErrorResponse, Logger } from '@bda/common';
import type { KeyStore } from '../keys/key-store';
import type { GatewayMetrics } from '../metrics';
import { limitHeaders } from '../rate-limit/headers';
import { anonymousSubject, keySubject, type Limiter, type PolicyConfig, type Subject } from '../rate-limit/policy';
import { checkTarget, isNodePath, matchRoute, type RouteSpec } from './allowlist';
import { addressGroup, clientIp, type TrustProxy } from './client-ip';
import { corsHeaders, preflightHeaders, type CorsPolicy } from './cors';
import type { ForwardContext, ForwardRoute, Forwarder } from './forward';

/** Paths the gateway answers itself (never proxied, never counted). */
export const OWN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface HandlerConfig {
  trustProxy: TrustProxy;
  ipv6Prefix: number;
  policy: PolicyConfig;
  nodeRoutes: readonly RouteSpec[];
  apiBodyLimit: number;
  rosettaLimitedStatus: number;
  rosettaLimitedCode: number;
  accessLog: boolean;
  /** Cross-origin access for browsers (`CORS_ALLOWED_ORIGINS`); undefined: off. */
  cors?: CorsPolicy;
}

export interface HandlerDeps {
  config: HandlerConfig;
  logger: Logger;
  /** Where access lines go (default: `logger`). They name keys by id and never carry headers or queries. */
  accessLogger?: Logger;
  metrics: GatewayMetrics;
  keys: Pick<KeyStore, 'verify'>;
  /** Undefined when rate limiting is off. */
  limiter: Limiter | undefined;
  nodes: Forwarder;
  api: Forwarder;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** True for the gateway's own endpoints (served by the express app, not proxied). */
export function isOwnPath(url: string): boolean {
  const q = url.indexOf('?');
  return OWN_PATHS.has(q === -1 ? url : url.slice(0, q));
}

/**
 * Everything on a proxied request: request id, key, rate limit, target checks, forwarding, the access log
 * line. Plain node:http in and out (no body parser, no router, no express response helpers), so the HTTP
 * server can call it directly and only hand the gateway's own paths to express.
 */
export function proxyRequest(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res, deps).catch((err: unknown) => {
      deps.logger.error({ err, method: req.method }, 'gateway handler failed');
      if (!res.headersSent) writeJson(res, 500, { error: 'internal_error', message: 'an unexpected error occurred' });
      else res.destroy();
    });
  };
}

/** The same as express middleware (first in the app; `next()` only for the gateway's own paths). */
export function gatewayHandler(deps: HandlerDeps): RequestHandler {
  const proxy = proxyRequest(deps);
  return (req, res, next) => {
    if (isOwnPath(req.url)) next();
    else proxy(req, res);
  };
}

function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

interface RequestLog {
  target: 'node' | 'api' | 'gateway';
  ip: string;
  keyId?: string;
  limited?: boolean;
}

async function handle(req: IncomingMessage, res: ServerResponse, deps: HandlerDeps): Promise<void> {
  const { config, metrics } = deps;
  const started = performance.now();
  const incomingId = req.headers['x-request-id'];
  const id = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
  req.headers['x-request-id'] = id;
  const ctx: ForwardContext = {
    tries: 0,
    responseHeaders: ['x-request-id', id, ...corsHeaders(config.cors, req.headers.origin)],
    corsOwned: config.cors !== undefined,
  };
  const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.trustProxy);
  const info: RequestLog = { target: 'gateway', ip };
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const rosetta = rawPath.startsWith('/rosetta/');

  res.once('close', () => {
    const seconds = (performance.now() - started) / 1000;
    metrics.requests.inc(info.target, String(res.statusCode));
    metrics.requestDuration.observe(seconds, info.target);
    if (config.accessLog) {
      (deps.accessLogger ?? deps.logger).info(
        {
          reqId: id,
          method: req.method,
          // Never the query string: it may carry anything, keys included.
          path: rawPath.length > 512 ? `${rawPath.slice(0, 512)}…` : rawPath,
          status: res.statusCode,
          ms: Math.round(seconds * 100_000) / 100,
          ip: info.ip,
          keyId: info.keyId,
          target: info.target,
          upstream: ctx.member,
          tries: ctx.tries || undefined,
          limited: info.limited,
          aborted: res.writableFinished ? undefined : true,
        },
        'request',
      );
    }
  });

  // 0. A browser's CORS preflight: answered here, before keys and limits (it never carries a key).
  const preflight = preflightHeaders(config.cors, req);
  if (preflight) {
    res.statusCode = 204;
    res.setHeader('x-request-id', id);
    for (let i = 0; i < preflight.length; i += 2) res.setHeader(preflight[i]!, preflight[i + 1]!);
    res.end();
    return;
  }

  // 1. Who: a key (which must be valid) or the client's address.
  let subject: Subject;
  const header = req.headers['x-api-key'];
  const presented = Array.isArray(header) ? header.join(',') : header;
  if (presented !== undefined && presented !== '') {
    const auth = await deps.keys.verify(presented);
    metrics.auth.inc(auth.status);
    if (auth.status === 'unknown') return answerError(req, res, ctx, rosetta, 401, 'unauthorized', 'the API key is not valid');
    if (auth.status === 'revoked')
      return answerError(req, res, ctx, rosetta, 401, 'unauthorized', 'the API key has been revoked');
    if (auth.status === 'unavailable')
      return answerError(req, res, ctx, rosetta, 503, 'service_unavailable', 'the API key could not be verified, try again');
    info.keyId = auth.key.id;
    subject = keySubject(auth.key.id, auth.key, config.policy);
  } else {
    metrics.auth.inc('anonymous');
    subject = anonymousSubject(addressGroup(ip, config.ipv6Prefix), config.policy);
  }

  // 2. Rate limit (every proxied request counts, whatever comes of it).
  if (deps.limiter) {
    const decision = await deps.limiter.check(subject);
    const h = limitHeaders(decision);
    for (const name in h) ctx.responseHeaders.push(name, h[name]!);
    metrics.rateLimitDecisions.inc(subject.tier, decision.allowed ? 'allowed' : 'limited');
    if (!decision.allowed) {
      info.limited = true;
      const message = `rate limit exceeded (${subject.tier === 'anonymous' ? 'per client address' : 'per key'}); retry in ${h['retry-after']} s`;
      if (rosetta)
        return answerError(req, res, ctx, true, config.rosettaLimitedStatus, 'rate_limited', message, config.rosettaLimitedCode);
      return answerError(req, res, ctx, rosetta, 429, 'rate_limited', message);
    }
  }

  // 3. Where: the node pool for allowlisted node RPC, the api for the rest.
  const target = checkTarget(url);
  if (!target.ok) return answerError(req, res, ctx, rosetta, 400, 'invalid_request', target.message);
  let forwarder: Forwarder;
  let route: ForwardRoute;
  if (isNodePath(target.path)) {
    const spec = matchRoute(config.nodeRoutes, req.method ?? '', target.path);
    if (!spec)
      return answerError(
        req,
        res,
        ctx,
        rosetta,
        404,
        'not_found',
        `${req.method} ${target.path} is not a proxied node RPC route`,
      );
    info.target = 'node';
    forwarder = deps.nodes;
    route = spec;
  } else {
    info.target = 'api';
    forwarder = deps.api;
    route = { retry: req.method === 'GET' || req.method === 'HEAD', bodyLimit: config.apiBodyLimit };
  }
  const failure = await forwarder.forward(req, res, url, route, ip, ctx);
  if (failure) answerError(req, res, ctx, rosetta, failure.status, failure.error, failure.message);
}

/**
 * A JSON error produced by the gateway itself. Under `/rosetta/` the body is the Rosetta `Error` object
 * (`retriable` for limits and upstream trouble); elsewhere `{error, message}`.
 */
function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ForwardContext,
  rosetta: boolean,
  status: number,
  error: string,
  message: string,
  rosettaCode?: number,
): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const h = ctx.responseHeaders;
  for (let i = 0; i < h.length; i += 2) res.setHeader(h[i]!, h[i + 1]!);
  // An unread request body would otherwise be read and thrown away before the connection can be reused.
  if (!req.complete) res.setHeader('connection', 'close');
  if (!rosetta) {
    const body: ErrorResponse = { error, message };
    writeJson(res, status, body);
    return;
  }
  const body = {
    code: rosettaCode ?? status,
    message: error,
    description: message,
    retriable: rosettaCode !== undefined || status === 503 || status === 502 || status === 504,
    details: { error, message },
  };
  writeJson(res, status, body);
}
