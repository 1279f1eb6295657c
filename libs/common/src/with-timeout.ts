/**
 * `fn()`'s result, or a rejection with `onTimeout()` (by default an `Error` saying how long it waited) once `ms`
 * have passed without one. The timer is cleared either way; `fn`'s own work is not cancelled.
 */
export async function withTimeout<T>(ms: number, fn: () => Promise<T> | T, onTimeout?: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout ? onTimeout() : new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(fn), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
