/**
 * The node RPC allowlist and the checks that make a request target safe to forward.
 *
 * The gateway forwards the request target byte for byte (it never re-encodes), so what it checks is
 * exactly what an upstream sees. A target is refused before any matching when it is not a plain
 * origin-form path or could be read differently by another parser: dot segments (plain or
 * percent-encoded), encoded slashes or backslashes, empty segments, control characters.
 */

export interface RouteSpec {
  method: string;
  /** The pattern as configured, e.g. `/v2/accounts/{principal}`. */
  pattern: string;
  /** Safe to send again to another node after it reached one (GETs always). */
  retry: boolean;
  /** Largest accepted request body in bytes (0 = no body). */
  bodyLimit: number;
  /** Sent once to every available member at the same time; the first success answers (forward.ts). */
  broadcast: boolean;
  regex: RegExp;
}

const ENTRY = /^(GET|POST|PUT|DELETE|PATCH|HEAD)\s+(\/\S*)((?:\s+(?:retry|broadcast|limit=\d+))*)$/i;

/** Parses `METHOD /path/{param} [retry] [broadcast] [limit=BYTES], …`. */
export function parseRouteList(value: string, defaultPostLimit: number): RouteSpec[] {
  const routes: RouteSpec[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const m = ENTRY.exec(entry);
    if (!m) throw new Error(`route "${entry}" is not "METHOD /path/{param} [retry] [broadcast] [limit=BYTES]"`);
    const method = m[1]!.toUpperCase();
    const pattern = m[2]!;
    const options = (m[3] ?? '').trim().split(/\s+/).filter(Boolean);
    const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'DELETE';
    const limitOpt = options.find((o) => o.startsWith('limit='));
    routes.push({
      method,
      pattern,
      retry: method === 'GET' || method === 'HEAD' || options.includes('retry'),
      bodyLimit: limitOpt ? Number(limitOpt.slice(6)) : hasBody ? defaultPostLimit : 0,
      broadcast: options.includes('broadcast'),
      regex: compilePattern(pattern),
    });
  }
  if (routes.length === 0) throw new Error('the node route allowlist is empty');
  return routes;
}

function compilePattern(pattern: string): RegExp {
  const segments = pattern.split('/').slice(1);
  const parts = segments.map((s) => {
    if (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(s)) return '[^/]+';
    if (!/^[A-Za-z0-9._~-]+$/.test(s)) throw new Error(`route pattern "${pattern}" has an invalid segment "${s}"`);
    return s.replace(/[.]/g, '\\.');
  });
  return new RegExp(`^/${parts.join('/')}$`);
}

export type TargetCheck = { ok: true; path: string; query: string } | { ok: false; message: string };

// Percent-escapes that would change the path's structure once decoded: `.`, `/`, `\`, NUL and controls,
// and `%` itself (double encoding).
const BAD_ESCAPE = /%(2e|2f|5c|25|0[0-9a-f]|1[0-9a-f]|7f)/i;
// Characters allowed in a path by RFC 3986 (pchar plus `/`), with percent-escapes.
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;

/** Checks a raw request target (`req.url`) and splits it into path and query. */
export function checkTarget(url: string): TargetCheck {
  if (url.charCodeAt(0) !== 47 /* / */) return { ok: false, message: 'the request target must be a path' };
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  if (!PATH_CHARS.test(path)) return { ok: false, message: 'the path contains characters that are not allowed' };
  if (path.includes('//')) return { ok: false, message: 'the path contains an empty segment' };
  if (path.includes('%') && BAD_ESCAPE.test(path)) {
    return { ok: false, message: 'the path contains an encoded dot, slash, backslash, percent or control character' };
  }
  if (path.includes('/.')) {
    for (const seg of path.split('/')) {
      if (seg === '.' || seg === '..') return { ok: false, message: 'the path contains a dot segment' };
    }
  }
  if (hasControlOrBackslash(query)) return { ok: false, message: 'the query contains characters that are not allowed' };
  return { ok: true, path, query };
}

function hasControlOrBackslash(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x5c /* \\ */ || c === 0x23 /* # */) return true;
  }
  return false;
}

/** Finds the allowlisted route for a method and a checked path. */
export function matchRoute(routes: readonly RouteSpec[], method: string, path: string): RouteSpec | undefined {
  for (const r of routes) {
    if (r.method === method && r.regex.test(path)) return r;
  }
  return undefined;
}

/** True for the node RPC families (`/v2/…`, `/v3/…`) except `/v2/prices/…`, which the api answers (BNS). */
export function isNodePath(path: string): boolean {
  // Case-insensitive so that `/V2/…` or `/V3/…` cannot slip past the allowlist to the api.
  const head = path.slice(0, 11).toLowerCase();
  if (head.startsWith('/v3/') || head === '/v3') return true;
  if (!(head.startsWith('/v2/') || head === '/v2')) return false;
  return !(head === '/v2/prices' || head === '/v2/prices/');
}
