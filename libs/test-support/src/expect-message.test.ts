import { describe, expect, it } from '@jest/globals';
import { expectMessage } from './expect-message';

describe('expectMessage', () => {
  it('puts the message once in front of a failed assertion, in its message and its stack', () => {
    let caught: Error | undefined;
    try {
      expectMessage('the case', () => expect(1).toBe(2));
    } catch (err) {
      caught = err as Error;
    }
    expect(caught?.message.startsWith('the case\n\n')).toBe(true);
    expect(caught?.message.split('the case').length).toBe(2);
    expect(caught?.stack?.split('the case').length).toBe(2);
  });

  it('passes a passing assertion through, and rejects an async one with the message', async () => {
    expect(expectMessage('fine', () => expect(1).toBe(1))).toBeUndefined();
    await expect(expectMessage('later', async () => expect(await Promise.resolve(1)).toBe(2))).rejects.toThrow(/^later\n\n/);
  });
});
