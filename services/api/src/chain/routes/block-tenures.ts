import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { NotFoundError } from '@bda/common';
import type { BlockListResponse } from '../../api-types';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { parseCursorPage } from '../../params';
import { getTenureBlockPage } from '../datastore/tenure-blocks';
import { toBlockResponse } from '../mappers/block';
import { parseHeightParam } from './chain-params';
import type { RouteContext } from './context';

/** `/extended/v2/block-tenures/{tenure_height}/blocks`: a Nakamoto tenure's canonical blocks with cursors. */
export function blockTenuresRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v2/block-tenures/:tenure_height/blocks', async (req, res) => {
    const tenure = parseHeightParam(req.params.tenure_height, 'tenure_height');
    const { limit, offset, cursor } = parseCursorPage(req.query, ctx.limits.block, 'an index block hash');
    const page = await getTenureBlockPage(ctx.db, tenure, { limit, offset, cursor });
    if (cursor !== undefined && page.cursorHeight === null) {
      throw new NotFoundError(`cursor: no canonical block of tenure ${tenure} has index block hash ${cursor}`);
    }
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    const first = page.rows[0];
    const atTop = first !== undefined && first.block_height === page.high;
    const body: BlockListResponse = {
      limit,
      offset,
      total: page.lo === null ? 0 : page.hi! - page.lo + 1,
      next_cursor: atTop ? page.newer : null,
      prev_cursor: atTop ? page.older : null,
      cursor: first?.index_block_hash ?? null,
      results: page.rows.map(toBlockResponse),
    };
    res.json(body);
  });

  return router.routes;
}
