import type { Request, Response } from 'express';
import type { DbChainTip } from '@bda/db';

/** Chain reads change only when the tip moves: the tip identifies the version of every chain answer. */
export function chainTipETag(tip: DbChainTip | null): string {
  if (!tip) return 'W/"no-tip"';
  return `W/"${tip.index_block_hash}${tip.microblock_hash ? `:${tip.microblock_hash}` : ''}"`;
}

/**
 * Marks a chain read as revalidatable against the tip (`ETag` + `Cache-Control: no-cache`) and answers 304 when the
 * client's `If-None-Match` still matches. Returns true when the 304 was sent and the handler must stop.
 */
export function respondNotModifiedIfFresh(req: Request, res: Response, tip: DbChainTip | null): boolean {
  res.set('ETag', chainTipETag(tip));
  res.set('Cache-Control', 'public, no-cache');
  if (req.fresh) {
    res.status(304).end();
    return true;
  }
  return false;
}

/** Answers that must never be reused (mempool views, errors): the default for every response. */
export function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
  res.removeHeader('ETag');
}
