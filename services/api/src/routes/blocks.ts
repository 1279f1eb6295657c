import express, { type Router } from 'express';
import { NotFoundError } from '@bda/common';
import type { BlockListResponse } from '../api-types';
import { getCanonicalBlockByHash, getCanonicalBlockByHeight, getCanonicalBlocksInHeightRange } from '../datastore/blocks';
import { getChainTip } from '../datastore/chain-tip';
import { readSnapshot } from '../datastore/snapshot';
import { respondNotModifiedIfFresh } from '../http-cache';
import { toBlockResponse } from '../mappers/block';
import { parseHeightOrHash, parsePage } from '../params';
import type { RouteContext } from './context';

/** `/extended/v2/blocks` and `/extended/v2/blocks/{height_or_hash}`. */
export function blocksRouter(ctx: RouteContext): Router {
  const router = express.Router();

  router.get('/extended/v2/blocks', async (req, res) => {
    const { limit, offset } = parsePage(req.query, ctx.limits.block);
    const { tip, rows } = await readSnapshot(ctx.db, async (trx) => {
      const tip = await getChainTip(trx);
      if (!tip || offset >= tip.block_count) return { tip, rows: [] };
      // Canonical heights are contiguous from the lowest indexed one to the tip: the page is a height range.
      const lowest = tip.block_height - tip.block_count + 1;
      const high = tip.block_height - offset;
      const low = Math.max(high - limit + 1, lowest);
      return { tip, rows: await getCanonicalBlocksInHeightRange(trx, low, high) };
    });
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    const body: BlockListResponse = { limit, offset, total: tip?.block_count ?? 0, results: rows.map(toBlockResponse) };
    res.json(body);
  });

  router.get('/extended/v2/blocks/:height_or_hash', async (req, res) => {
    const ref = parseHeightOrHash(req.params.height_or_hash);
    const { tip, block } = await readSnapshot(ctx.db, async (trx) => ({
      tip: await getChainTip(trx),
      block:
        ref.kind === 'height' ? await getCanonicalBlockByHeight(trx, ref.height) : await getCanonicalBlockByHash(trx, ref.hash),
    }));
    if (!block) {
      throw new NotFoundError(
        ref.kind === 'height'
          ? `height_or_hash: no canonical block at height ${ref.height}`
          : `height_or_hash: no canonical block with block hash or index block hash ${ref.hash}`,
      );
    }
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toBlockResponse(block));
  });

  return router;
}
