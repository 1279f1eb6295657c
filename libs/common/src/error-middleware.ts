import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { toErrorAnswer } from './error-answer';
import type { ErrorResponse } from './errors';

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
 * Maps every thrown error to one JSON body shape (`toErrorAnswer`); anything unexpected is a 500 and is logged with
 * its stack.
 */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const answer = toErrorAnswer(err);
    if (answer.unexpected) logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    sendError(res, answer.status, answer.body.error, answer.body.message, answer.headers);
  };
}
