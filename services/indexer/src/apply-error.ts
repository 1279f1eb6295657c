import { isConnectionFailure } from '@bda/db';

/**
 * Whether a failure while applying a message is worth retrying (the database went away, a
 * serialization conflict) or is about the message itself (it goes to the dead letters).
 */
export function isRetriable(err: unknown): boolean {
  // Connection trouble, as the api also judges it (a protocol violation, 08P01, is the statement's own fault: retrying
  // it would wedge the stream on that message forever).
  if (isConnectionFailure(err)) return true;
  const code = (err as { code?: string } | null)?.code ?? '';
  if (/^(53|57P|58)/.test(code)) return true; // insufficient resources, operator intervention, system error
  return code === '40001' || code === '40P01'; // serialization failure, deadlock
}

/** Thrown for a message that can never be applied as it is. */
export class PoisonMessageError extends Error {
  readonly retriable = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PoisonMessageError';
  }
}
