import { AppError } from '@bda/common';

/**
 * The naming endpoints' errors: `error` carries the text the reference API answers (`Invalid page`, `No such
 * namespace`, `cannot find name x`, …), which its clients compare; `message` says what was wrong, as everywhere else.
 */
export class BnsInputError extends AppError {
  readonly status = 400;
  readonly error: string;
  constructor(error: string, message: string = error) {
    super(message);
    this.error = error;
  }
}

export class BnsNotFoundError extends AppError {
  readonly status = 404;
  readonly error: string;
  constructor(error: string, message: string = error) {
    super(message);
    this.error = error;
  }
}
