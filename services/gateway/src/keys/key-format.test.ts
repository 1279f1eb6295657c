import { describe, expect, it } from '@jest/globals';
import { displayPrefix, generateKey, hashKey, looksLikeKey } from './key-format';

describe('API key format', () => {
  it('generates bda_ keys with 256 random bits, a 12-character display prefix and a SHA-256', () => {
    const k = generateKey();
    expect(k.key).toMatch(/^bda_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(k.key.slice(4), 'base64url')).toHaveLength(32);
    expect(k.prefix).toBe(k.key.slice(0, 12));
    expect(k.hash).toEqual(hashKey(k.key));
    expect(k.hash).toHaveLength(32);
    expect(looksLikeKey(k.key)).toBe(true);
  });

  it('never generates the same key twice', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey().key));
    expect(keys.size).toBe(1000);
  });

  it('rejects anything that is not shaped like a key before any lookup', () => {
    expect(looksLikeKey('')).toBe(false);
    expect(looksLikeKey('bda_short')).toBe(false);
    expect(looksLikeKey(`xyz_${'a'.repeat(43)}`)).toBe(false);
    expect(looksLikeKey(`bda_${'a'.repeat(42)}!`)).toBe(false);
    expect(displayPrefix(`bda_${'a'.repeat(43)}`)).toBe('bda_aaaaaaaa');
  });
});
