/** Shared conversions from row values (int8/numeric arrive as strings) to response values. */

/** Unix seconds → `YYYY-MM-DDTHH:mm:ss.sssZ`, or `''` for 0 / unknown (as the reference API does). */
export function unixToIso(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '';
  if (Number.isInteger(seconds) && seconds < YEAR_10000) return wholeSecondsToIso(seconds);
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** 10000-01-01T00:00:00Z: from there `toISOString` writes six-digit years. */
const YEAR_10000 = 253_402_300_800;

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(seconds * 1000).toISOString()` for whole seconds of years 1970–9999, written directly: a page of blocks
 * or transactions formats three timestamps a row, and `Date#toISOString` was 3–7 % of the api's CPU on those pages
 * (profiles of 2026-11-27). The civil date from the day number is Howard Hinnant's `civil_from_days` algorithm
 * (public domain description, "chrono-Compatible Low-Level Date Algorithms"); the test compares with `toISOString`.
 */
function wholeSecondsToIso(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const secs = seconds - days * 86_400;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs - hh * 3600) / 60);
  const ss = secs - hh * 3600 - mm * 60;
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(hh)}:${pad2(mm)}:${pad2(ss)}.000Z`;
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
