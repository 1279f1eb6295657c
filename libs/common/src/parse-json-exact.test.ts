import { describe, expect, it } from 'vitest';
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

  it('rejects malformed JSON like JSON.parse', () => {
    expect(() => parseJsonExact('{"a": 123456789012345678901')).toThrow(SyntaxError);
    expect(() => parseJsonExact('not json')).toThrow(SyntaxError);
  });
});
