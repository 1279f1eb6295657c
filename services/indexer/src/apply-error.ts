import { isConnectionFailure } from '@bda/db';

/**
 * Whether a failure while applying a message is worth retrying (the database went away, a
 * serialization conflict) or is about the message itself (it goes to the dead letters).
 */
export function isRetriable(err: unknown): boolean {
  if (isConnectionFailure(err)) return true;
  const code = (err as { code?: string } | null)?.code ?? '';
  // A protocol violation (08P01) comes from the statement itself (e.g. more than 65,535 bind parameters): retrying
  // it would wedge the stream on that message forever.
  if (code === '08P01') return false;
  if (/^(08|53|57P|58)/.test(code)) return true; // connection, resources, shutdown, system
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
