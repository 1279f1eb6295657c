import { withTimeout } from '@bda/common';
import { BusUnavailableError } from './bus';

/**
 * The broker rejected the message itself (too large for the topic, invalid): retrying the same message
 * cannot succeed. The observer answers 413 for it rather than 503.
 */
export class BusRecordRejectedError extends Error {
  readonly retriable = false;
  constructor(
    message: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BusRecordRejectedError';
  }
}

export const UNKNOWN_TOPIC = new Set(['UNKNOWN_TOPIC_OR_PARTITION']);
export const REJECTED_TYPES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE']);

/** The first error in the `cause` chain with one of `types`. */
export function protocolErrorType(err: unknown, types: Set<string>): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 10; depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && types.has(type)) return type;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function toUnavailable(what: string, err: unknown): BusUnavailableError {
  return err instanceof BusUnavailableError ? err : new BusUnavailableError(`${what}: ${describe(err)}`, { cause: err });
}

/** `withTimeout` whose timeout is a `BusUnavailableError` naming what was waited for. */
export function busTimeout<T>(ms: number, what: string, fn: () => Promise<T>): Promise<T> {
  return withTimeout(ms, fn, () => new BusUnavailableError(`${what}: no answer within ${ms} ms`));
}
