import { AppError, type ErrorResponse } from './errors';

/** What an HTTP answer to an error is made of: its status, its extra headers and the `{error, message}` body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorResponse;
  /** True when the error was not one the code meant to answer (a bug or an outage): the caller logs it. */
  unexpected: boolean;
}

const INTERNAL: ErrorResponse = { error: 'internal_error', message: 'an unexpected error occurred' };

/**
 * The one place where an error becomes an HTTP answer. The typed errors of `errors.ts` answer with their own status,
 * code, message and headers; the errors of body parsers (express's `type` and `status` fields) are the client's;
 * anything else is a 500 with a generic body, its details kept for the log only.
 */
export function toErrorAnswer(err: unknown): ErrorAnswer {
  if (err instanceof AppError) {
    return {
      status: err.status,
      headers: { ...err.headers },
      body: { error: err.error, message: err.message },
      unexpected: false,
    };
  }
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    type?: unknown;
    status?: unknown;
    statusCode?: unknown;
    message?: unknown;
    limit?: unknown;
  };
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const client = (s: number, error: string, text: string): ErrorAnswer => ({
    status: s,
    headers: {},
    body: { error, message: text },
    unexpected: false,
  });
  if (e.type === 'entity.too.large' || status === 413) {
    return client(
      413,
      'payload_too_large',
      `request body exceeds the limit of ${typeof e.limit === 'number' ? e.limit : '?'} bytes`,
    );
  }
  if (e.type === 'entity.parse.failed') return client(400, 'invalid_json', `request body is not valid JSON: ${message}`.trim());
  if (e.type === 'request.aborted') return client(400, 'request_aborted', 'the client aborted the request body');
  if (status !== undefined && status >= 400 && status < 500) return client(status, 'invalid_request', message || 'bad request');
  return { status: 500, headers: {}, body: { ...INTERNAL }, unexpected: true };
}
