import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { NotFoundError } from '@bda/common';
import type { BlockListResponse } from '../../api-types';
import {
  getCanonicalBlockJsonPage,
  getCanonicalBlockPage,
  getTipAndBlockAtHeight,
  getTipAndBlockByHash,
  type BlockPage,
} from '../datastore/blocks';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { toBlockResponse } from '../mappers/block';
import { parseCursorPage, parseHeightOrHash } from '../../params';
import type { RouteContext } from './context';

/** `/extended/v2/blocks` and `/extended/v2/blocks/{height_or_hash}`. */
export function blocksRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v2/blocks', async (req, res) => {
    const { limit, offset, cursor } = parseCursorPage(req.query, ctx.limits.block, 'an index block hash');
    const page = await getCanonicalBlockJsonPage(ctx.db, { limit, offset, cursor });
    const { tip, high, lowest } = page;
    // Without a cursor, a page off the chain is empty (the statement reads no rows for it).
    if (cursor !== undefined) {
      if (!tip || page.cursorHeight === null) {
        throw new NotFoundError(`cursor: no canonical block with index block hash ${cursor}`);
      }
      if (high! > tip.block_height || high! < lowest!) {
        throw new NotFoundError(
          `offset: ${offset} blocks from the cursor is outside the canonical chain (heights ${lowest} to ${tip.block_height})`,
        );
      }
    }
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    if (!page.complete) {
      // A block the kept text cannot show as JavaScript writes it (migration 097): the page from the columns.
      res.json(blockListBody(await getCanonicalBlockPage(ctx.db, { limit, offset, cursor }), limit, offset));
      return;
    }
    const { first } = page;
    // The neighbouring pages' cursors are the blocks a whole page above and below the page's top height.
    const atTop = first !== null && first.block_height === high;
    // `JSON.stringify` of the same body with the blocks' kept texts as `results` (`blockListBody`).
    res.send(
      `{"limit":${limit},"offset":${offset},"total":${tip?.block_count ?? 0},"next_cursor":${jsonOrNull(
        atTop ? page.newer : null,
      )},"prev_cursor":${jsonOrNull(atTop ? page.older : null)},"cursor":${jsonOrNull(
        first?.index_block_hash ?? null,
      )},"results":[${page.results}]}`,
    );
  });

  router.get('/extended/v2/blocks/:height_or_hash', async (req, res) => {
    const ref = parseHeightOrHash(req.params.height_or_hash, 'height_or_hash', { allowLatest: true });
    const { tip, block } =
      ref.kind === 'hash'
        ? await getTipAndBlockByHash(ctx.db, ref.hash)
        : await getTipAndBlockAtHeight(ctx.db, ref.kind === 'height' ? ref.height : null);
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

  return router.routes;
}

/** A `/extended/v2/blocks` body from the blocks' columns. */
function blockListBody(page: BlockPage, limit: number, offset: number): BlockListResponse {
  const first = page.rows[0];
  const atTop = first !== undefined && first.block_height === page.high;
  return {
    limit,
    offset,
    total: page.tip?.block_count ?? 0,
    next_cursor: atTop ? page.newer : null,
    prev_cursor: atTop ? page.older : null,
    cursor: first?.index_block_hash ?? null,
    results: page.rows.map(toBlockResponse),
  };
}

/** A string or null as JSON text. */
function jsonOrNull(v: string | null): string {
  return v === null ? 'null' : JSON.stringify(v);
}
