import { AppError } from '@bda/common';

/** The peer's address is not in `OBSERVER_ALLOWED_CIDRS`: 403, before any of the body is read. */
export class PeerNotAllowedError extends AppError {
  readonly status = 403;
  readonly error = 'forbidden';
}

/** The body arrived slower than the observer's minimum rate (`OBSERVER_BODY_MIN_RATE`): 408, connection closed. */
export class BodyTimeoutError extends AppError {
  readonly status = 408;
  readonly error = 'request_timeout';
}
