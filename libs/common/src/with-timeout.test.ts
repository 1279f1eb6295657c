import { describe, expect, it } from '@jest/globals';
import { withTimeout } from './with-timeout';

describe('withTimeout', () => {
  it("gives fn's result, or its rejection, when it settles in time", async () => {
    expect(await withTimeout(1_000, async () => 42)).toBe(42);
    expect(await withTimeout(1_000, () => 'sync')).toBe('sync');
    await expect(withTimeout(1_000, () => Promise.reject(new Error('own failure')))).rejects.toThrow('own failure');
  });

  it('rejects with the given error, or a default one, when fn does not settle', async () => {
    const never = () => new Promise<never>(() => {});
    await expect(withTimeout(5, never)).rejects.toThrow('timed out after 5 ms');
    await expect(withTimeout(5, never, () => new RangeError('too slow'))).rejects.toBeInstanceOf(RangeError);
  });
});
