import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { RateLimitedError, type AccessSink, type Logger } from '@bda/common';
import type { KeyStore } from '../keys/key-store';
import type { GatewayMetrics } from '../metrics';
import type { InvalidKeyBudget } from '../rate-limit/invalid-key-budget';
import { limitRequest } from '../rate-limit/limit-request';
import type { Limiter, PolicyConfig, Subject } from '../rate-limit/policy';
import type { RouteSpec } from './allowlist';
import { answerError } from './answer-error';
import { authenticate } from './authenticate';
import { chooseUpstream } from './choose-upstream';
import { addressGroup, clientIp, type TrustProxy } from './client-ip';
import { corsHeaders, preflightHeaders, type CorsPolicy } from './cors';
import type { ForwardContext, Forwarder } from './forward';
import { forwardedHeaders } from './forwarded-request';
import { logRequest, type RequestLog } from './log-request';
import { readRequestBody } from './read-request-body';
import type { SameTurnForwards } from './same-turn-forwards';

/** Paths the gateway answers itself on its public port (never proxied, never counted). Its metrics: admin port. */
const OWN_PATHS = new Set(['/healthz', '/readyz']);

interface HandlerConfig {
  trustProxy: TrustProxy;
  ipv6Prefix: number;
  policy: PolicyConfig;
  nodeRoutes: readonly RouteSpec[];
  apiBodyLimit: number;
  /** Time allowed for a whole request body once its headers are in (GATEWAY_BODY_TIMEOUT_MS). */
  bodyTimeoutMs: number;
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
  /**
   * Where hand-built access lines go (access-line.ts), in place of `accessLogger`: the access log's destination when
   * its level lets info lines through.
   */
  accessSink?: AccessSink;
  metrics: GatewayMetrics;
  keys: Pick<KeyStore, 'verify' | 'peek'>;
  /** Invalid keys per client address (authenticate.ts). */
  invalidKeys: InvalidKeyBudget;
  /** Undefined when rate limiting is off. */
  limiter: Limiter | undefined;
  nodes: Forwarder;
  api: Forwarder;
  /**
   * The path of api reads (same-turn-forwards.ts): kept answers served from memory (ADR 0048), identical reads of one
   * event-loop turn sharing one upstream request (ADR 0033); undefined when both are off.
   */
  sameTurn?: SameTurnForwards;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** True for the gateway's own endpoints (served by the express app, not proxied). */
export function isOwnPath(url: string): boolean {
  const q = url.indexOf('?');
  return OWN_PATHS.has(q === -1 ? url : url.slice(0, q));
}

/**
 * A proxied request, step by step: CORS preflight, authenticate (authenticate.ts), limit (rate-limit/limit-request.ts),
 * choose the upstream (choose-upstream.ts), read the body (read-request-body.ts), forward (forward.ts), and the access
 * line (log-request.ts). A step that refuses throws a typed error (`@bda/common` errors.ts); answer-error.ts turns it
 * into the answer. Plain node:http in and out (no body parser, no router, no express response helpers), so the HTTP
 * server can call it directly and only hand the gateway's own paths to express.
 */
export function proxyRequest(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = (subject: Subject) => limitRequest(deps, subject);
  const authDeps = { keys: deps.keys, invalidKeys: deps.invalidKeys, policy: deps.config.policy, limit, metrics: deps.metrics };
  const logDeps = {
    accessLog: deps.config.accessLog,
    logger: deps.accessLogger ?? deps.logger,
    sink: deps.accessSink,
    metrics: deps.metrics,
  };
  const rosettaLimit = { status: deps.config.rosettaLimitedStatus, code: deps.config.rosettaLimitedCode };
  const chooseDeps = {
    nodeRoutes: deps.config.nodeRoutes,
    apiBodyLimit: deps.config.apiBodyLimit,
    nodes: deps.nodes,
    api: deps.api,
  };
  return (req, res) => {
    const { config } = deps;
    const incomingId = req.headers['x-request-id'];
    const reqId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    req.headers['x-request-id'] = reqId;
    const ctx: ForwardContext = {
      tries: 0,
      responseHeaders: ['x-request-id', reqId, ...corsHeaders(config.cors, req.headers.origin)],
      corsOwned: config.cors !== undefined,
    };
    const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.trustProxy);
    const info: RequestLog = { reqId, target: 'gateway', ip };
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q === -1 ? url : url.slice(0, q);
    logRequest(req, res, rawPath, info, ctx, logDeps);

    // A browser's CORS preflight: answered here, before keys and limits (it never carries a key).
    const preflight = preflightHeaders(config.cors, req);
    if (preflight) {
      res.statusCode = 204;
      res.setHeader('x-request-id', reqId);
      for (let i = 0; i < preflight.length; i += 2) res.setHeader(preflight[i]!, preflight[i + 1]!);
      res.end();
      return;
    }

    const steps = async () => {
      const header = req.headers['x-api-key'];
      const presented = Array.isArray(header) ? header.join(',') : header;
      const who = await authenticate(presented, addressGroup(ip, config.ipv6Prefix), authDeps);
      info.keyId = who.keyId;
      const limits = await limit(who.subject);
      if (limits) for (const name in limits) ctx.responseHeaders.push(name, limits[name]!);
      const upstream = chooseUpstream(req, chooseDeps);
      info.target = upstream.target;
      const body = await readRequestBody(req, upstream.route.bodyLimit, config.bodyTimeoutMs);
      if (body === 'aborted') return;
      const headers = () => forwardedHeaders(req, ip, config.trustProxy, body);
      const shareable = upstream.target === 'api' && body === undefined && (req.method === 'GET' || req.method === 'HEAD');
      if (shareable && deps.sameTurn) await deps.sameTurn.forward(req, res, upstream, headers, ctx);
      else await upstream.forwarder.forward(req, res, upstream.url, upstream.route, headers(), body, ctx);
    };
    steps().catch((err: unknown) => {
      if (err instanceof RateLimitedError) info.limited = true;
      answerError(req, res, ctx, err, rawPath.startsWith('/rosetta/') ? rosettaLimit : undefined, deps.logger);
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
