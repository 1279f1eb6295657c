import type { IncomingMessage } from 'node:http';

/**
 * Cross-origin access for browser clients (a web wallet or an explorer calling the API from its own origin).
 * Keys travel in `x-api-key`, never in cookies, so no credentials mode is needed and `*` is safe as the default.
 * `undefined` turns CORS off: no CORS header is sent and preflights are proxied like any request.
 */
export type CorsPolicy = { anyOrigin: true } | { anyOrigin: false; origins: ReadonlySet<string> } | undefined;

/**
 * `CORS_ALLOWED_ORIGINS`: `*` (any origin), a comma-separated list of origins (`https://app.example`), or empty (off).
 * Throws, naming the entry, on anything that is not an origin.
 */
export function parseCorsOrigins(raw: string): CorsPolicy {
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) return undefined;
  if (entries.length === 1 && entries[0] === '*') return { anyOrigin: true };
  const origins = new Set<string>();
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`"${entry}" is not an origin (scheme://host[:port]) or "*"`);
    }
    if (url.origin === 'null' || url.origin !== entry.replace(/\/$/, '')) {
      throw new Error(`"${entry}" is not an origin (scheme://host[:port], no path) or "*"`);
    }
    origins.add(url.origin);
  }
  return { anyOrigin: false, origins };
}

/** Headers a browser script may read besides the safelisted ones: the request id and the rate-limit state. */
const EXPOSED = 'x-request-id, ratelimit-policy, ratelimit, ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after';
/** What a preflight may ask to send. */
const ALLOWED_METHODS = 'GET, HEAD, POST, OPTIONS';
const ALLOWED_HEADERS = 'content-type, x-api-key, x-request-id, accept, cache-control, if-none-match';
/** A list of header names as a preflight asks for them (`Access-Control-Request-Headers`). */
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;
/** How long a browser may cache a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = '86400';

/** The CORS response headers, as name/value pairs, for a request from `origin` (none when it may not read). */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): string[] {
  if (!policy) return [];
  if (policy.anyOrigin) return ['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED];
  // The answer depends on the Origin header: caches must keep one copy per origin.
  if (!origin || !policy.origins.has(origin)) return ['vary', 'origin'];
  return ['access-control-allow-origin', origin, 'access-control-expose-headers', EXPOSED, 'vary', 'origin'];
}

/**
 * The headers of a preflight's answer (204), or `undefined` when `req` is not a preflight (an `OPTIONS` with
 * `Access-Control-Request-Method`) or CORS is off. A preflight is answered by the gateway alone: it carries no key
 * (browsers never send one), reaches no upstream and is not counted against any limit.
 */
export function preflightHeaders(policy: CorsPolicy, req: IncomingMessage): string[] | undefined {
  if (!policy || req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return undefined;
  const allow = corsHeaders(policy, req.headers.origin);
  if (!allow.includes('access-control-allow-origin')) return allow;
  return [
    ...allow,
    'access-control-allow-methods',
    ALLOWED_METHODS,
    'access-control-allow-headers',
    requestedHeaders(req.headers['access-control-request-headers']),
    'access-control-max-age',
    PREFLIGHT_MAX_AGE,
  ];
}

/**
 * Whether an upstream's response header is one CORS decides. With CORS on, the gateway alone decides them: an
 * upstream's own (a Stacks node answers `Access-Control-Allow-Origin: *`) would double the gateway's, or open to
 * every origin what the gateway keeps to its list.
 */
export function isCorsHeader(lowerName: string): boolean {
  return lowerName.startsWith('access-control-');
}

/**
 * The headers a preflight may send: those it asks for, when it names them well (any header: the gateway forwards what
 * the api and nodes read, and a key or limit never depends on a header a browser adds), else the ones clients use.
 */
function requestedHeaders(asked: string | undefined): string {
  const list = asked?.trim();
  return list && list.length <= 1024 && HEADER_LIST.test(list) ? list.toLowerCase() : ALLOWED_HEADERS;
}
