/**
 * Whether a failure while applying a message is worth retrying (the database went away, a
 * serialization conflict) or is about the message itself (it goes to the dead letters).
 */
export function isRetriable(err: unknown): boolean {
  const e = err as { code?: string; message?: string; name?: string };
  const code = e?.code ?? '';
  // A protocol violation (08P01) comes from the statement itself (e.g. more than 65,535 bind parameters): retrying
  // it would wedge the stream on that message forever.
  if (code === '08P01') return false;
  if (/^(08|53|57P|58)/.test(code)) return true; // connection, resources, shutdown, system
  if (code === '40001' || code === '40P01') return true; // serialization failure, deadlock
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  if (e?.name === 'KnexTimeoutError') return true;
  const msg = e?.message ?? '';
  return /Connection terminated|Client has encountered a connection error|terminating connection/i.test(msg);
}

/** Thrown for a message that can never be applied as it is. */
export class PoisonMessageError extends Error {
  readonly retriable = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PoisonMessageError';
  }
}
