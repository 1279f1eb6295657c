import { describe, expect, it } from '@jest/globals';
import { U128_MAX } from './integer-limits';
import { VarintError, decodeVarint, encodeVarint } from './varint';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const reason = (bytes: number[]) => {
  try {
    decodeVarint(Uint8Array.from(bytes));
  } catch (error) {
    if (error instanceof VarintError) return error.reason;
    throw error;
  }
  return 'ok';
};

describe('varint', () => {
  it.each([
    [0n, '00'],
    [1n, '01'],
    [127n, '7f'],
    [128n, '8001'],
    [300n, 'ac02'],
    [840_000n, 'c0a233'],
    [U128_MAX, 'ff'.repeat(18) + '03'],
  ])('encodes %s as %s and back', (value, encoded) => {
    expect(hex(encodeVarint(value))).toBe(encoded);
    expect(decodeVarint(Buffer.from(encoded, 'hex'))).toEqual({ value, length: encoded.length / 2 });
  });

  it('round-trips every power of two and alternating bit strings', () => {
    let alternating = 0n;
    for (let i = 0n; i < 128n; i++) {
      alternating = (alternating << 1n) | (i % 2n);
      for (const value of [1n << i, alternating]) {
        const encoded = encodeVarint(value);
        expect(decodeVarint(encoded)).toEqual({ value, length: encoded.length });
      }
    }
  });

  it('decodes from an offset and stops at the first terminated byte', () => {
    expect(decodeVarint(Uint8Array.from([0xff, 0xac, 0x02, 0x05]), 1)).toEqual({ value: 300n, length: 2 });
  });

  it('accepts 19 bytes with the last using only its two low bits', () => {
    expect(decodeVarint(Uint8Array.from([...new Array(18).fill(0x80), 0x00]))).toEqual({ value: 0n, length: 19 });
    expect(decodeVarint(Uint8Array.from([...new Array(18).fill(0x80), 0x02]))).toEqual({ value: 1n << 127n, length: 19 });
  });

  it.each([0x04, 0x08, 0x10, 0x20, 0x40, 0x7c])('rejects 19th byte %i as overflow', (last) => {
    expect(reason([...new Array(18).fill(0x80), last])).toBe('overflow');
  });

  it('rejects a 20th byte as overlong', () => {
    expect(reason([...new Array(19).fill(0x80), 0x00])).toBe('overlong');
  });

  it('rejects input ending inside a varint as unterminated', () => {
    expect(reason([0x80])).toBe('unterminated');
    expect(reason([])).toBe('unterminated');
  });

  it('refuses to encode values outside u128', () => {
    expect(() => encodeVarint(-1n)).toThrow(RangeError);
    expect(() => encodeVarint(U128_MAX + 1n)).toThrow(RangeError);
  });
});
