/** First path segments the services answer for operators, never for the public: the api's own probes and metrics. */
const INTERNAL_SEGMENTS = new Set(['metrics', 'healthz', 'readyz']);

/**
 * True when a checked path (allowlist.ts `checkTarget`) would reach an internal endpoint of an upstream, in any
 * spelling a router might accept: any case, trailing or extra slashes, percent-encoded letters (`/%6detrics`), or
 * below it (`/metrics/x`). The gateway answers those 404 itself; its own `/healthz` and `/readyz` are matched exactly
 * before this, and its metrics are on the admin listener only.
 */
export function isInternalPath(path: string): boolean {
  const end = path.indexOf('/', 1);
  let first = end === -1 ? path.slice(1) : path.slice(1, end);
  if (first.includes('%')) {
    try {
      first = decodeURIComponent(first);
    } catch {
      return false;
    }
  }
  return INTERNAL_SEGMENTS.has(first.toLowerCase());
}
