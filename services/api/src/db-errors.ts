import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { GatewayTimeoutError, ServiceUnavailableError } from '@bda/common';
import { isConnectionFailure } from '@bda/db';

/**
 * The database being unreachable or overloaded is an upstream failure (503), a statement hitting
 * `API_STATEMENT_TIMEOUT_MS` a timeout (504) — not a bug (500). Other errors pass through unchanged.
 */
export function translateDbError(err: unknown): unknown {
  if ((err as { code?: unknown } | null)?.code === '57014') {
    return new GatewayTimeoutError('the database did not answer in time; try again');
  }
  if (isConnectionFailure(err)) return new ServiceUnavailableError('the database is unavailable; try again shortly');
  return err;
}

export function dbErrorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, _res, next) => {
    const translated = translateDbError(err);
    if (translated !== err) logger.warn({ err, method: req.method, path: req.path }, 'database unavailable');
    next(translated);
  };
}
