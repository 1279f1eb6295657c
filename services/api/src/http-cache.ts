import type { IncomingHttpHeaders } from 'node:http';
import type { DbChainTip } from '@bda/db';

/** Chain reads change only when the tip moves: the tip identifies the version of every chain answer. */
function chainTipETag(tip: DbChainTip | null): string {
  if (!tip) return 'W/"no-tip"';
  return `W/"${tip.index_block_hash}${tip.microblock_hash ? `:${tip.microblock_hash}` : ''}"`;
}

/** The cache policy of an answer with a validator: clients may keep it, and must ask whether it is still current. */
const REVALIDATE = 'public, no-cache';

/** The parts of a response (express's, or a `ReadReply`) the cache policy sets. */
interface CacheableReply {
  set(name: string, value: string): unknown;
  status(code: number): { end(): unknown };
  removeHeader(name: string): unknown;
}

/**
 * Marks a chain read as revalidatable against the tip (`ETag` + `Cache-Control: no-cache`) and answers 304 when the
 * client's `If-None-Match` still matches. Returns true when the 304 was sent and the handler must stop.
 */
export function respondNotModifiedIfFresh(
  req: { headers: IncomingHttpHeaders },
  res: CacheableReply,
  tip: DbChainTip | null,
): boolean {
  const etag = chainTipETag(tip);
  res.set('ETag', etag);
  res.set('Cache-Control', REVALIDATE);
  if (isFresh(req.headers, etag)) {
    res.status(304).end();
    return true;
  }
  return false;
}

/** Answers that must never be reused (mempool views, errors): the default for every response. */
export function noStore(res: CacheableReply): void {
  res.set('Cache-Control', 'no-store');
  res.removeHeader('ETag');
}

/**
 * Whether the client's copy is current (RFC 9110 §13.1.2, as express's `req.fresh` decides for a GET without
 * `Last-Modified`): `If-None-Match` is `*` or lists `etag` (weak comparison), and the request does not ask past
 * caches with `Cache-Control: no-cache`.
 */
function isFresh(headers: IncomingHttpHeaders, etag: string): boolean {
  const header = headers['if-none-match'];
  if (!header) return false;
  const cacheControl = headers['cache-control'];
  if (cacheControl && /(?:^|,)\s*no-cache\s*(?:,|$)/.test(cacheControl)) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const ours = opaque(etag);
  return header.split(',').some((tag) => opaque(tag.trim()) === ours);
}
