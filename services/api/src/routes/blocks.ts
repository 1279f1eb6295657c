import express, { type Router } from 'express';
import { NotFoundError } from '@bda/common';
import type { BlockListResponse } from '../api-types';
import {
  getCanonicalBlockByHash,
  getCanonicalBlockByHeight,
  getCanonicalBlocksInHeightRange,
  getCanonicalHeightByIndexHash,
  getCanonicalIndexHashesAtHeights,
} from '../datastore/blocks';
import { getChainTip } from '../datastore/chain-tip';
import { readSnapshot } from '../datastore/snapshot';
import { respondNotModifiedIfFresh } from '../http-cache';
import { toBlockResponse } from '../mappers/block';
import { parseCursorPage, parseHeightOrHash } from '../params';
import type { RouteContext } from './context';

/** `/extended/v2/blocks` and `/extended/v2/blocks/{height_or_hash}`. */
export function blocksRouter(ctx: RouteContext): Router {
  const router = express.Router();

  router.get('/extended/v2/blocks', async (req, res) => {
    const { limit, offset, cursor } = parseCursorPage(req.query, ctx.limits.block, 'an index block hash');
    const { tip, rows, around } = await readSnapshot(ctx.db, async (trx) => {
      const tip = await getChainTip(trx);
      let anchor = tip?.block_height ?? 0;
      if (cursor !== undefined) {
        const height = tip ? await getCanonicalHeightByIndexHash(trx, cursor) : null;
        if (height === null) throw new NotFoundError(`cursor: no canonical block with index block hash ${cursor}`);
        anchor = height;
      }
      // Canonical heights are contiguous from the lowest indexed one to the tip: the page is a height range.
      const lowest = tip ? tip.block_height - tip.block_count + 1 : 0;
      const high = anchor - offset;
      if (!tip || high > tip.block_height || high < lowest) {
        if (cursor !== undefined) {
          throw new NotFoundError(
            `offset: ${offset} blocks from the cursor is outside the canonical chain (heights ${lowest} to ${tip!.block_height})`,
          );
        }
        return { tip, rows: [], around: new Map<number, string>() };
      }
      const low = Math.max(high - limit + 1, lowest);
      const [rows, around] = await Promise.all([
        getCanonicalBlocksInHeightRange(trx, low, high),
        // The first blocks of the pages either side: a whole page of newer blocks, and the older page.
        getCanonicalIndexHashesAtHeights(
          trx,
          [high + limit, high - limit].filter((h) => h <= tip.block_height && h >= lowest),
        ),
      ]);
      return { tip, rows, around };
    });
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    const first = rows[0];
    const body: BlockListResponse = {
      limit,
      offset,
      total: tip?.block_count ?? 0,
      next_cursor: first ? (around.get(first.block_height + limit) ?? null) : null,
      prev_cursor: first ? (around.get(first.block_height - limit) ?? null) : null,
      cursor: first?.index_block_hash ?? null,
      results: rows.map(toBlockResponse),
    };
    res.json(body);
  });

  router.get('/extended/v2/blocks/:height_or_hash', async (req, res) => {
    const ref = parseHeightOrHash(req.params.height_or_hash, 'height_or_hash', { allowLatest: true });
    const { tip, block } = await readSnapshot(ctx.db, async (trx) => {
      const tip = await getChainTip(trx);
      if (ref.kind === 'hash') return { tip, block: await getCanonicalBlockByHash(trx, ref.hash) };
      const height = ref.kind === 'height' ? ref.height : tip?.block_height;
      return { tip, block: height === undefined ? undefined : await getCanonicalBlockByHeight(trx, height) };
    });
    if (!block) {
      throw new NotFoundError(
        ref.kind === 'height'
          ? `height_or_hash: no canonical block at height ${ref.height}`
          : ref.kind === 'latest'
            ? 'height_or_hash: no block has been indexed yet'
            : `height_or_hash: no canonical block with block hash or index block hash ${ref.hash}`,
      );
    }
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toBlockResponse(block));
  });

  return router;
}
