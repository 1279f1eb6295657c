import { hash, randomBytes } from 'node:crypto';

/** Every key starts with this, so that people and secret scanners recognize one. */
export const KEY_PREFIX = 'bda_';
/** Characters of the key kept as its display prefix (`bda_` + 8 of the random part, 48 bits). */
const DISPLAY_PREFIX_LENGTH = 12;
const KEY_SHAPE = /^bda_[A-Za-z0-9_-]{43}$/;

export interface NewKey {
  /** The key itself: shown once, never stored. */
  key: string;
  prefix: string;
  hash: Buffer;
}

/** 256 random bits, base64url: `bda_` + 43 characters (208 bits stay secret beyond the display prefix). */
export function generateKey(): NewKey {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: displayPrefix(key), hash: hashKey(key) };
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** SHA-256 of the key, one-shot (no Hash object per request: the gateway hashes every presented key). */
export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** A well-formed key (checked before any lookup, so garbage never reaches the database). */
export function looksLikeKey(value: string): boolean {
  return value.length === 47 && KEY_SHAPE.test(value);
}
