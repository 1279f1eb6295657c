import { describe, expect, it } from 'vitest';
import { sanitizeJson, toJsonText } from './sanitize';

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
});
