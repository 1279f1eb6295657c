/** Shared conversions from row values (int8/numeric arrive as strings) to response values. */

/** Unix seconds → `YYYY-MM-DDTHH:mm:ss.sssZ`, or `''` for 0 / unknown (as the reference API does). */
export function unixToIso(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '';
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** An int8 column value as a number (block times, costs, nonces all fit in 2^53). */
export function int(v: string | number | null | undefined, fallback = 0): number {
  if (v === null || v === undefined || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : fallback;
}

/** A stored ISO timestamp (the observer's receive time) → Unix seconds. */
export function isoToUnix(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** A string field of a jsonb object, or `fallback`. */
export function str(obj: Record<string, unknown>, key: string, fallback = ''): string {
  const v = obj[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return fallback;
}

/** A nullable string field of a jsonb object. */
export function strOrNull(obj: Record<string, unknown>, key: string): string | null {
  const v = obj[key];
  return typeof v === 'string' ? v : null;
}
