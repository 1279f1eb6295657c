/**
 * PostgreSQL text and jsonb reject the NUL character, and jsonb rejects a lone UTF-16 surrogate (which JSON text can
 * only carry as an escape such as `\ud800`); node payloads can carry the first (a VM error quoting a Clarity string
 * did, in the fuzzed fixture), and any JSON body the observer accepts can carry the second. Such characters become
 * U+FFFD before they are written.
 */
export function sanitizeText(s: string): string;
export function sanitizeText(s: string | null | undefined): string | null;
export function sanitizeText(s: string | null | undefined): string | null {
  if (s == null) return null;
  const text = s.includes('\u0000') ? s.split('\u0000').join('\uFFFD') : s;
  return text.isWellFormed() ? text : text.toWellFormed();
}

/** Deep version for values stored as jsonb. */
export function sanitizeJson<T>(value: T): T {
  if (typeof value === 'string') return sanitizeText(value) as T;
  if (Array.isArray(value)) return value.map((v) => sanitizeJson(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[sanitizeText(k)] = sanitizeJson(v);
    return out as T;
  }
  return value;
}

/** A JSON escape that `JSON.stringify` writes only for a NUL or a lone surrogate (or a literal backslash before one). */
const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f][0-9a-f]{2})/i;

/**
 * `value` as JSON text for a jsonb column, NUL characters and lone surrogates replaced as `sanitizeJson` does.
 * `JSON.stringify` writes those only as escapes (`\u0000`, `\ud800`), so text without such an escape needs no walk
 * over the value; text with one (or with a literal backslash before such letters) is made again from the sanitized
 * value.
 */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return UNSTORABLE_ESCAPE.test(text) ? JSON.stringify(sanitizeJson(value)) : text;
}

/** Lower-case `0x` hex. */
export function normalizeHex(h: string): string {
  const s = h.toLowerCase();
  return s.startsWith('0x') ? s : `0x${s}`;
}
