import { AppError } from '@bda/common';

/** The peer's address is not in `OBSERVER_ALLOWED_CIDRS`: 403, before any of the body is read. */
export class PeerNotAllowedError extends AppError {
  readonly status = 403;
  readonly error = 'forbidden';
}
