/**
 * PostgreSQL text and jsonb reject the NUL character; node payloads can carry it (a VM error quoting a
 * Clarity string did, in the fuzzed fixture). Such characters become U+FFFD before they are written.
 */
export function sanitizeText(s: string): string;
export function sanitizeText(s: string | null | undefined): string | null;
export function sanitizeText(s: string | null | undefined): string | null {
  if (s == null) return null;
  return s.includes('\u0000') ? s.split('\u0000').join('\uFFFD') : s;
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

/**
 * `value` as JSON text for a jsonb column, NUL characters replaced as `sanitizeJson` does. `JSON.stringify` writes a
 * NUL only as the escape `\u0000`, so text without that sequence needs no walk over the value; text with it (a NUL,
 * or a literal backslash before `u0000`) is made again from the sanitized value.
 */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u0000') ? JSON.stringify(sanitizeJson(value)) : text;
}

/** Lower-case `0x` hex. */
export function normalizeHex(h: string): string {
  const s = h.toLowerCase();
  return s.startsWith('0x') ? s : `0x${s}`;
}
