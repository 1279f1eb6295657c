import { hostname } from 'node:os';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { AccessSink } from './access-writer';

/** What one request's access line says once the response is over. */
export interface RequestLine {
  reqId: string | undefined;
  method: string | undefined;
  path: string;
  status: number;
  ms: number;
}

/** Writes one request's access line (or nothing, when the level leaves access lines out). */
export type RequestLog = (line: RequestLine) => void;

const PID = process.pid;
const HOSTNAME = JSON.stringify(hostname());

/** The start of a line pino writes at level info for a logger named `name`: its fixed fields, in pino's order. */
export function infoLinePrefix(name: string, now: number): string {
  return `{"level":30,"time":${now},"pid":${PID},"hostname":${HOSTNAME},"name":${JSON.stringify(name)}`;
}

/**
 * The access line exactly as pino writes `logger.info(line, 'request')` for a logger named `name` (the same keys, order
 * and JSON; undefined fields left out), built by hand: pino's generic serializer and redaction were most of an access
 * line's cost. Every string goes through JSON.stringify, so nothing a client wrote can break the line. A request line
 * holds no header, so the redact list has nothing to remove from it.
 */
export function requestLogLine(name: string, l: RequestLine, now: number = Date.now()): string {
  let s = infoLinePrefix(name, now);
  if (l.reqId !== undefined) s += `,"reqId":${JSON.stringify(l.reqId)}`;
  if (l.method !== undefined) s += `,"method":${JSON.stringify(l.method)}`;
  return `${s},"path":${JSON.stringify(l.path)},"status":${l.status},"ms":${l.ms},"msg":"request"}\n`;
}

/**
 * A service's access log: hand-built lines to `sink` (an `AccessWriter` on stdout: a turn's lines in one write) when
 * one is given, else `logger.info(line, 'request')` (tests that capture the logger's lines); nothing when the
 * logger's level is above info.
 */
export function requestLog(logger: Logger, name: string, sink?: AccessSink): RequestLog {
  if (!logger.isLevelEnabled('info')) return () => {};
  if (sink) return (l) => sink.write(requestLogLine(name, l));
  return (l) => logger.info(l, 'request');
}

/** One JSON line per request once it finishes; never logs headers (keys stay out of logs). */
export function accessLog(log: RequestLog): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      log({
        reqId: req.headers['x-request-id'] as string | undefined,
        method: req.method,
        path: req.originalUrl.split('?')[0]!,
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
      });
    });
    next();
  };
}
