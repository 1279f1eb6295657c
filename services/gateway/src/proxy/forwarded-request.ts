import type { IncomingMessage } from 'node:http';
import { DATA_EPOCH, WANT_DATA_EPOCH } from './answer-cache';
import { isTrustedPeer, type TrustProxy } from './client-ip';
import { isHopByHop } from './forward';

// Request headers the gateway replaces or must not pass on: the forwarding headers are the gateway's to set, the key
// is the gateway's to check, the length follows the body the gateway read, and the answer fence's headers (ADR 0048)
// are between the gateway and the api only (a client's would make the api say an epoch the gateway did not ask for).
const DROP_REQUEST = new Set([
  'host',
  WANT_DATA_EPOCH,
  DATA_EPOCH,
  'expect',
  'content-length',
  'x-api-key',
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-real-ip',
  'forwarded',
]);
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The headers sent to an upstream: the client's, less the hop-by-hop ones and those the gateway sets itself from what it
 * knows. `X-Forwarded-For` and `X-Real-IP` carry the client address as the trusted-proxy rule determined it (never
 * the chain a client wrote); `X-Forwarded-Proto` is `http` (the gateway's own listener), or what our own proxy in
 * front said (`http` or `https`); `X-Forwarded-Host` only when our own proxy in front gave a well-formed one. `Host`
 * is the member's (added per try).
 */
export function forwardedHeaders(req: IncomingMessage, clientIp: string, trust: TrustProxy, body: Buffer | undefined): string[] {
  const raw = req.rawHeaders;
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (isHopByHop(lower) || DROP_REQUEST.has(lower)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  // Headers named by Connection are hop-by-hop too.
  const conn = req.headers.connection;
  if (conn && conn !== 'keep-alive' && conn !== 'close') {
    const named = new Set(conn.split(',').map((s) => s.trim().toLowerCase()));
    for (let i = out.length - 2; i >= 0; i -= 2) if (named.has(out[i]!.toLowerCase())) out.splice(i, 2);
  }
  out.push('x-forwarded-for', clientIp, 'x-real-ip', clientIp);
  const fromProxy = isTrustedPeer(req.socket.remoteAddress, trust);
  const proto = fromProxy ? lastValue(req.headers['x-forwarded-proto'])?.toLowerCase() : undefined;
  out.push('x-forwarded-proto', proto === 'https' ? 'https' : 'http');
  const host = fromProxy ? lastValue(req.headers['x-forwarded-host']) : undefined;
  if (host !== undefined && HOST.test(host)) out.push('x-forwarded-host', host);
  const id = req.headers['x-request-id'];
  if (typeof id === 'string') out.push('x-request-id', id);
  if (body !== undefined) out.push('content-length', String(body.length));
  return out;
}

/** The last entry of a header our proxy appended to (`a, b` → `b`). */
function lastValue(v: string | string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  const joined = Array.isArray(v) ? v.join(',') : v;
  const parts = joined.split(',');
  const last = parts[parts.length - 1]!.trim();
  return last === '' ? undefined : last;
}

/**
 * The request target sent upstream: the client's byte for byte (allowlist.ts checked it), less any `x-api-key` query
 * parameter, however its name is cased or percent-encoded (a key never travels further than the gateway).
 */
export function forwardedTarget(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url.slice(q + 1);
  if (!/api|%/i.test(query)) return url;
  const kept = query.split('&').filter((param) => {
    const eq = param.indexOf('=');
    const name = eq === -1 ? param : param.slice(0, eq);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // Not decodable: kept as written (the upstream cannot read it as the key either).
    }
    return decoded.trim().toLowerCase() !== 'x-api-key';
  });
  return kept.length === 0 ? url.slice(0, q) : `${url.slice(0, q)}?${kept.join('&')}`;
}
