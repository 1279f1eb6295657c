import { describe, expect, it } from '@jest/globals';
import { bytesToHex, hexToBytes } from './byte-reader';

describe('hexToBytes', () => {
  it('decodes hex with or without 0x, in either case', () => {
    expect([...hexToBytes('0x00ff7A')]).toEqual([0, 255, 122]);
    expect([...hexToBytes('0XAbCd')]).toEqual([0xab, 0xcd]);
    expect([...hexToBytes('0x')]).toEqual([]);
    expect([...hexToBytes('')]).toEqual([]);
  });

  it('gives a copy that owns its whole buffer', () => {
    const bytes = hexToBytes('0x0102');
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(2);
    expect(bytesToHex(bytes)).toBe('0x0102');
  });

  it.each([
    ['an odd length', '0xabc'],
    ['a non-hex pair first', '0xzz00'],
    ['a non-hex pair last', '0x00zz'],
    ['a non-hex character inside a pair', '0x0g'],
    ['a space', '0x00 01'],
    ['a second prefix', '0x0x00'],
  ])('refuses %s', (_, hex) => {
    expect(() => hexToBytes(hex, 'raw_tx')).toThrow('raw_tx: not an even-length hex string');
  });

  it('refuses what is not a string', () => {
    expect(() => hexToBytes(12 as unknown as string, 'raw_tx')).toThrow('raw_tx: expected a hex string, got number');
  });
});
