import type { GetRoute } from '../../plain-routes';
import { ReadRoutes, type ReadReply, type ReadRequest } from '../../read-routes';
import { NotFoundError } from '@bda/common';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { parseHash32, parsePage } from '../../params';
import { getV1Block, getV1BlockJson, getV1BlockPage, getV1BlockPartsPage, type V1BlockKey } from '../datastore/v1-blocks';
import { toV1BlockJson, toV1BlockListJson, v1BlockListParts } from '../mappers/v1-block';
import { parseHeightParam, redirectBareHash } from './chain-params';
import { markDeprecated } from '../../deprecated';
import type { RouteContext } from './context';

/**
 * `/extended/v1/block…`: the reference API's v1 block views (deprecated there in favour of the v2 ones, and marked so
 * here too), each a canonical block with its transaction ids and microblocks.
 */
export function v1BlocksRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/block', async (req, res) => {
    markDeprecated(res);
    const { limit, offset } = parsePage(req.query, ctx.limits.block, { zeroMeansDefault: true });
    // The blocks' kept v1 text parts written one after the other (ADR 0042); a page with a block without them is
    // answered from the columns, each block's kept transaction ids copied in (`toV1BlockListJson`). `send` keeps the
    // JSON type.
    const kept = await getV1BlockPartsPage(ctx.db, { limit, offset });
    if (kept.complete) {
      if (respondNotModifiedIfFresh(req, res, kept.tip)) return;
      res.send(v1BlockListParts({ limit, offset, total: kept.tip?.block_count ?? 0 }, kept.rows));
      return;
    }
    const { tip, rows } = await getV1BlockPage(ctx.db, { limit, offset });
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.send(toV1BlockListJson({ limit, offset, total: tip?.block_count ?? 0 }, rows));
  });

  const answer = async (req: ReadRequest, res: ReadReply, key: V1BlockKey, notFound: string) => {
    const kept = await getV1BlockJson(ctx.db, key);
    if (!kept.found) throw new NotFoundError(notFound);
    if (kept.text !== null) {
      if (respondNotModifiedIfFresh(req, res, kept.tip)) return;
      res.send(kept.text);
      return;
    }
    const { tip, block } = await getV1Block(ctx.db, key);
    if (!block) throw new NotFoundError(notFound);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.send(toV1BlockJson(block));
  };

  router.get('/extended/v1/block/by_height/:height', async (req, res) => {
    markDeprecated(res);
    const height = parseHeightParam(req.params.height, 'height');
    await answer(req, res, { kind: 'height', height }, `height: no canonical block at height ${height}`);
  });

  router.get('/extended/v1/block/by_burn_block_height/:burn_block_height', async (req, res) => {
    markDeprecated(res);
    const height = parseHeightParam(req.params.burn_block_height, 'burn_block_height');
    await answer(req, res, { kind: 'burnHeight', height }, `burn_block_height: no canonical block in burn block ${height}`);
  });

  router.get('/extended/v1/block/by_burn_block_hash/:burn_block_hash', async (req, res) => {
    markDeprecated(res);
    const raw = req.params.burn_block_hash;
    const what = 'a burn block hash';
    if (redirectBareHash(res, raw, 'burn_block_hash', what, (h) => `/extended/v1/block/by_burn_block_hash/${h}`)) return;
    const hash = parseHash32(raw, 'burn_block_hash', what);
    await answer(req, res, { kind: 'burnHash', hash }, `burn_block_hash: no canonical block in burn block ${hash}`);
  });

  router.get('/extended/v1/block/:hash', async (req, res) => {
    markDeprecated(res);
    const raw = req.params.hash;
    if (redirectBareHash(res, raw, 'hash', 'a block hash', (h) => `/extended/v1/block/${h}`)) return;
    const hash = parseHash32(raw, 'hash', 'a block hash');
    await answer(req, res, { kind: 'hash', hash }, `hash: no canonical block with block hash ${hash}`);
  });

  return router.routes;
}
