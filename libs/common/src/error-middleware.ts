import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, type ErrorResponse } from './errors';

export function sendError(
  res: Parameters<RequestHandler>[1],
  status: number,
  error: string,
  message: string,
  headers?: Record<string, string>,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (headers) res.set(headers);
  const body: ErrorResponse = { error, message };
  res.status(status).json(body);
}

/** 404 for any route nobody answered. */
export function notFoundHandler(): RequestHandler {
  return (req, res) => sendError(res, 404, 'not_found', `no route for ${req.method} ${req.path}`);
}

/**
 * Maps every thrown error to one JSON body shape. Errors from body parsers (malformed JSON, too large)
 * are client errors, not ours; anything unknown is a 500 and is logged with its stack.
 */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (err instanceof AppError) {
      sendError(res, err.status, err.error, err.message, err.headers);
      return;
    }
    const e = err as { type?: string; status?: number; statusCode?: number; message?: string; limit?: number };
    const status = e.status ?? e.statusCode;
    if (e.type === 'entity.too.large' || status === 413) {
      sendError(res, 413, 'payload_too_large', `request body exceeds the limit of ${e.limit ?? '?'} bytes`);
      return;
    }
    if (e.type === 'entity.parse.failed') {
      sendError(res, 400, 'invalid_json', `request body is not valid JSON: ${e.message ?? ''}`.trim());
      return;
    }
    if (e.type === 'request.aborted') {
      sendError(res, 400, 'request_aborted', 'the client aborted the request body');
      return;
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendError(res, status, 'invalid_request', e.message ?? 'bad request');
      return;
    }
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    sendError(res, 500, 'internal_error', 'an unexpected error occurred');
  };
}
