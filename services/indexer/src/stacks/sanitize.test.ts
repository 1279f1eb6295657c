import { describe, expect, it } from '@jest/globals';
import { sanitizeJson, sanitizeText, toJsonText } from './sanitize';

describe('toJsonText', () => {
  it('gives JSON.stringify of the value when it holds no NUL', () => {
    const value = { name: 'transfer', args: [{ type: 'uint128', note: 'é "quoted" \n' }], n: 1, ok: true, none: null };
    expect(toJsonText(value)).toBe(JSON.stringify(value));
  });

  it('replaces NUL characters in keys and values, at any depth, as sanitizeJson does', () => {
    const value = { 'a\u0000b': ['x\u0000', { deep: 'y\u0000\u0000z' }] };
    const text = toJsonText(value);
    expect(text).not.toContain('\\u0000');
    expect(JSON.parse(text)).toEqual({ 'a\uFFFDb': ['x\uFFFD', { deep: 'y\uFFFD\uFFFDz' }] });
    expect(text).toBe(JSON.stringify(sanitizeJson(value)));
  });

  it('keeps a literal backslash followed by u0000, which is not a NUL', () => {
    const value = { memo: 'C:\\u0000 is not a NUL' };
    expect(JSON.parse(toJsonText(value))).toEqual(value);
  });

  it('replaces lone surrogates, which jsonb refuses, and keeps pairs and literal backslashes', () => {
    const value = { 'k\ud800': ['\udfff alone', 'pair \ud83d\ude00', 'C:\\ud800 is text'] };
    const text = toJsonText(value);
    expect(text).not.toMatch(/(?<!\\)\\ud[89a-f]/i);
    expect(JSON.parse(text)).toEqual({ 'k\uFFFD': ['\uFFFD alone', 'pair \ud83d\ude00', 'C:\\ud800 is text'] });
  });
});

describe('sanitizeText', () => {
  it('makes text storable: NUL and lone surrogates become U+FFFD, everything else stays', () => {
    expect(sanitizeText('a\u0000b\ud800c\udc00')).toBe('a\uFFFDb\uFFFDc\uFFFD');
    expect(sanitizeText('ok \ud83d\ude00 é')).toBe('ok \ud83d\ude00 é');
    expect(sanitizeText(null)).toBeNull();
  });
});
