/**
 * Domain errors thrown by code and mapped to HTTP in one place (`toErrorAnswer` in error-answer.ts).
 * Every error body outside Rosetta is `{ error, message }`.
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly error: string;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input from the client: 400, the message names the parameter. */
export class InputError extends AppError {
  readonly status = 400;
  readonly error = 'invalid_request';
}

export class UnauthorizedError extends AppError {
  readonly status = 401;
  readonly error = 'unauthorized';
}

export class NotFoundError extends AppError {
  readonly status = 404;
  readonly error = 'not_found';
}

export class PayloadTooLargeError extends AppError {
  readonly status = 413;
  readonly error = 'payload_too_large';
}

/** The request (its body) did not arrive in time. */
export class RequestTimeoutError extends AppError {
  readonly status = 408;
  readonly error = 'request_timeout';
}

export class RateLimitedError extends AppError {
  readonly status = 429;
  readonly error = 'rate_limited';
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

export class BadGatewayError extends AppError {
  readonly status = 502;
  readonly error = 'bad_gateway';
}

export class ServiceUnavailableError extends AppError {
  readonly status = 503;
  readonly error = 'service_unavailable';
}

export class GatewayTimeoutError extends AppError {
  readonly status = 504;
  readonly error = 'gateway_timeout';
}

/** The body every non-Rosetta error response carries. */
export interface ErrorResponse {
  error: string;
  message: string;
}
