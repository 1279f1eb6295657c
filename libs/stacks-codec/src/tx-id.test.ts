import { randomBytes } from 'node:crypto';
import { sha512_256 } from '@noble/hashes/sha2';
import { c32address } from 'c32check';
import { describe, expect, it } from '@jest/globals';
import { txIdFromBytes } from './decode-transaction';
import { encodeStacksAddress } from './principal';

describe('txIdFromBytes', () => {
  it('is the SHA-512/256 of the bytes, 0x-prefixed, for empty, small and large inputs', () => {
    for (const bytes of [new Uint8Array(0), randomBytes(180), randomBytes(300_000)]) {
      expect(txIdFromBytes(bytes)).toBe(`0x${Buffer.from(sha512_256(bytes)).toString('hex')}`);
    }
  });
});

describe('encodeStacksAddress', () => {
  it("gives c32check's address on first encoding and from its cache afterwards, whatever the hex case", () => {
    for (let i = 0; i < 50; i++) {
      const hash = randomBytes(20).toString('hex');
      const version = [22, 26, 20, 21][i % 4]!;
      const expected = c32address(version, hash);
      expect(encodeStacksAddress(version, hash)).toBe(expected);
      expect(encodeStacksAddress(version, hash.toUpperCase())).toBe(expected);
      expect(encodeStacksAddress(version, `0x${hash}`)).toBe(expected);
    }
  });

  it('keeps versions apart in its cache', () => {
    const hash = 'a46ff88886c2ef9762d970b4d2c63678835bd39d';
    expect(encodeStacksAddress(22, hash)).toBe('SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7');
    expect(encodeStacksAddress(26, hash)).toBe(c32address(26, hash));
    expect(encodeStacksAddress(26, hash)).not.toBe(encodeStacksAddress(22, hash));
  });
});
