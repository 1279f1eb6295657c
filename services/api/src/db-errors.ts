import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { GatewayTimeoutError, ServiceUnavailableError } from '@bda/common';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * The database being unreachable or overloaded is an upstream failure (503), a statement hitting
 * `API_STATEMENT_TIMEOUT_MS` a timeout (504) — not a bug (500). Other errors pass through unchanged.
 */
export function translateDbError(err: unknown): unknown {
  const e = err as { code?: string; name?: string; message?: string } | null;
  if (!e || typeof e !== 'object') return err;
  if (e.code === '57014') return new GatewayTimeoutError('the database did not answer in time; try again');
  if ((e.code && UNAVAILABLE_CODES.has(e.code)) || e.name === 'KnexTimeoutError') {
    return new ServiceUnavailableError('the database is unavailable; try again shortly');
  }
  return err;
}

export function dbErrorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, _res, next) => {
    const translated = translateDbError(err);
    if (translated !== err) logger.warn({ err, method: req.method, path: req.path }, 'database unavailable');
    next(translated);
  };
}
