import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessSink, Logger } from '@bda/common';
import type { GatewayMetrics } from '../metrics';
import { accessLine } from './access-line';
import type { ForwardContext } from './forward';

/** What the steps of a request learned, for its access line and metrics. */
export interface RequestLog {
  reqId: string;
  target: 'node' | 'api' | 'gateway';
  ip: string;
  keyId?: string;
  limited?: boolean;
}

export interface LogRequestDeps {
  accessLog: boolean;
  /** Where access lines go. They name keys by id and never carry headers or queries. */
  logger: Logger;
  /** When set, lines are built by hand (access-line.ts) and written here instead of through `logger`. */
  sink?: AccessSink;
  metrics: Pick<GatewayMetrics, 'requests' | 'requestDuration'>;
}

/**
 * Once the response is over (finished or cut): the request's metrics and one JSON access line. Never the query string
 * (it may carry anything, keys included) and never a header.
 */
export function logRequest(
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
  info: RequestLog,
  ctx: ForwardContext,
  deps: LogRequestDeps,
): void {
  const started = performance.now();
  res.once('close', () => {
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.requests.inc(info.target, String(res.statusCode));
    deps.metrics.requestDuration.observe(seconds, info.target);
    if (!deps.accessLog) return;
    const line = {
      reqId: info.reqId,
      method: req.method,
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
      kept: ctx.kept,
    };
    if (deps.sink) deps.sink.write(accessLine(line));
    else deps.logger.info(line, 'request');
  });
}
