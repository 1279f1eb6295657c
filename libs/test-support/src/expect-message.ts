/**
 * Runs an assertion and, when it fails, puts `message` in front of its failure: what vitest's
 * `expect(value, message)` did, for jest, whose `expect` takes one argument. An assertion that returns a promise
 * (`async () => expect(await read()).toBe(x)`, `.resolves`) gives a promise to await.
 */
export function expectMessage(message: string | undefined, assertion: () => void): void;
export function expectMessage(message: string | undefined, assertion: () => Promise<unknown>): Promise<void>;
export function expectMessage(message: string | undefined, assertion: () => unknown): void | Promise<void> {
  const withMessage = (err: unknown): unknown => {
    if (err instanceof Error && message) {
      // The stack first: V8 formats it on first read, with the message as it is then.
      const stack = err.stack;
      const original = err.message;
      err.message = `${message}\n\n${original}`;
      if (stack?.includes(original)) err.stack = stack.replace(original, err.message);
    }
    return err;
  };
  let result: unknown;
  try {
    result = assertion();
  } catch (err) {
    throw withMessage(err);
  }
  if (result instanceof Promise) {
    return result.then(
      () => undefined,
      (err: unknown) => {
        throw withMessage(err);
      },
    );
  }
}
