import { describe, expect, it } from '@jest/globals';
import { parseJsonExact } from './parse-json-exact';

describe('parseJsonExact', () => {
  it('keeps integers beyond 2^53 exact, as decimal strings', () => {
    const text =
      '{"op":{"transfer_stx":{"transfered_ustx":18446744073709551615,"max_amount":340282366920938463463374607431768211455}},"list":[9007199254740993,-9007199254740993]}';
    expect(parseJsonExact(text)).toEqual({
      op: { transfer_stx: { transfered_ustx: '18446744073709551615', max_amount: '340282366920938463463374607431768211455' } },
      list: ['9007199254740993', '-9007199254740993'],
    });
  });

  it('leaves safe integers, decimals and exponents as numbers', () => {
    const text = '{"a": 9007199254740991, "b": 1234567890123456.5, "c": 12345678901234567e2, "d": 42, "e": -9007199254740991}';
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
    expect(parseJsonExact(text)).toMatchObject({ a: Number.MAX_SAFE_INTEGER, d: 42 });
  });

  it('never touches digits inside strings, escaped quotes included', () => {
    const text = '{"s":"x:12345678901234567890","t":"say \\"a\\":99999999999999999999","n":[ 99999999999999999999 ]}';
    expect(parseJsonExact(text)).toEqual({
      s: 'x:12345678901234567890',
      t: 'say "a":99999999999999999999',
      n: ['99999999999999999999'],
    });
  });

  it('leaves long fraction and exponent digits of other numbers alone', () => {
    // The big integer makes the rewrite run over the whole text.
    const text =
      '{"big": 12345678901234567890, "f": -0.12345678901234567890, "g": [1.00000000000000000001], "e": 1e+12345678901234567, "n": 2E-12345678901234567}';
    expect(parseJsonExact(text)).toEqual({ ...(JSON.parse(text) as object), big: '12345678901234567890' });
  });

  it('handles a string of ten million characters beside a large integer', () => {
    const long = `${'x'.repeat(10_000_000)}\\"`;
    const parsed = parseJsonExact(`{"amount":340282366920938463463374607431768211455,"raw":"${long}"}`) as {
      amount: string;
      raw: string;
    };
    expect(parsed.amount).toBe('340282366920938463463374607431768211455');
    expect(parsed.raw).toBe(`${'x'.repeat(10_000_000)}"`);
  });

  it('rejects malformed JSON like JSON.parse', () => {
    expect(() => parseJsonExact('{"a": 123456789012345678901')).toThrow(SyntaxError);
    expect(() => parseJsonExact('not json')).toThrow(SyntaxError);
  });
});
