import type { IncomingMessage, ServerResponse } from 'node:http';
import { RateLimitedError, toErrorAnswer, type Logger } from '@bda/common';
import type { ForwardContext } from './forward';

export interface RosettaLimitAnswer {
  /** HTTP status of a limited `/rosetta/` request (ROSETTA_LIMITED_STATUS). */
  status: number;
  /** Its Rosetta `Error.code` (ROSETTA_LIMITED_CODE). */
  code: number;
}

/**
 * Answers an error thrown by a step of the gateway: `toErrorAnswer` (libs/common) decides status, headers and the
 * `{error, message}` body; under `/rosetta/` the body is the Rosetta `Error` object wrapping it (`retriable` for
 * limits and upstream trouble), and a limited request gets the Rosetta status and code. Unexpected errors are logged.
 */
export function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ForwardContext,
  err: unknown,
  rosetta: RosettaLimitAnswer | undefined,
  logger: Logger,
): void {
  const answer = toErrorAnswer(err);
  if (answer.unexpected) logger.error({ err, method: req.method }, 'gateway handler failed');
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const h = ctx.responseHeaders;
  for (let i = 0; i < h.length; i += 2) res.setHeader(h[i]!, h[i + 1]!);
  for (const name in answer.headers) res.setHeader(name, answer.headers[name]!);
  // An unread request body would otherwise be read and thrown away before the connection can be reused.
  if (!req.complete) res.setHeader('connection', 'close');
  if (!rosetta) {
    writeJson(res, answer.status, answer.body);
    return;
  }
  const limited = err instanceof RateLimitedError;
  const status = limited ? rosetta.status : answer.status;
  writeJson(res, status, {
    code: limited ? rosetta.code : status,
    message: answer.body.error,
    description: answer.body.message,
    retriable: limited || status === 503 || status === 502 || status === 504,
    details: answer.body,
  });
}

function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
