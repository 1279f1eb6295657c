import { describe, expect, it } from '@jest/globals';
import { formatRuneAmount } from './format-amount';
import { U128_MAX } from './integer-limits';

describe('formatRuneAmount', () => {
  it.each([
    [0n, 0, '0'],
    [12345n, 0, '12345'],
    [12345n, 2, '123.45'],
    [5n, 3, '0.005'],
    [0n, 2, '0.00'],
    [100n, 2, '1.00'],
    [U128_MAX, 0, '340282366920938463463374607431768211455'],
    [U128_MAX, 38, '3.40282366920938463463374607431768211455'],
    [1n, 38, '0.00000000000000000000000000000000000001'],
  ])('%s with divisibility %i is %s', (amount, divisibility, text) => {
    expect(formatRuneAmount(amount, divisibility)).toBe(text);
  });

  it('rejects negative amounts and impossible divisibilities', () => {
    expect(() => formatRuneAmount(-1n, 0)).toThrow(RangeError);
    expect(() => formatRuneAmount(1n, 39)).toThrow(RangeError);
    expect(() => formatRuneAmount(1n, 1.5)).toThrow(RangeError);
  });
});
