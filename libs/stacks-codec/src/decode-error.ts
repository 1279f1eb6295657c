/**
 * Thrown when bytes handed to this package (a raw transaction, a Clarity value, a burnchain operation) cannot be
 * decoded. Callers catch it and park the input (a dead letter); it never means a bug in the caller.
 */
export class DecodeError extends Error {
  /** Byte offset in the input where decoding failed, when known. */
  readonly offset: number | undefined;

  constructor(message: string, options?: { offset?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DecodeError';
    this.offset = options?.offset;
  }
}

/** Runs `fn`, turning any non-`DecodeError` failure (e.g. a library throwing a plain `Error`) into a `DecodeError`. */
export function asDecodeError<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new DecodeError(`${what}: ${message}`, { cause: err });
  }
}
