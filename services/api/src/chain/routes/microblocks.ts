import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { NotFoundError } from '@bda/common';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { parseHash32, parsePage } from '../../params';
import { getMicroblock, getMicroblockPage, getUnanchoredTxs } from '../datastore/microblocks';
import { toMicroblockResponse, type MicroblockListResponse } from '../mappers/microblock';
import { toUnanchoredTransactionResponse } from '../mappers/unanchored-tx';
import type { TransactionResponse } from '../../api-types';
import { redirectBareHash } from './chain-params';
import { markDeprecated } from '../../deprecated';
import type { RouteContext } from './context';

/** The reference's microblock page sizes (`ResourceType.Microblock`). */
const MICROBLOCK_PAGE_LIMIT = { default: 20, max: 200 } as const;

/**
 * `/extended/v1/microblock`, `/unanchored/txs` and `/extended/v1/microblock/{hash}` (deprecated in the reference: microblocks ended with
 * Nakamoto).
 */
export function microblocksRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/microblock', async (req, res) => {
    markDeprecated(res);
    const { limit, offset } = parsePage(req.query, MICROBLOCK_PAGE_LIMIT, { zeroMeansDefault: true });
    const { tip, total, rows } = await getMicroblockPage(ctx.db, { limit, offset });
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    const body: MicroblockListResponse = { limit, offset, total, results: rows.map(toMicroblockResponse) };
    res.json(body);
  });

  // Before `/:hash`, which would read `unanchored` as a hash.
  router.get('/extended/v1/microblock/unanchored/txs', async (req, res) => {
    markDeprecated(res);
    const { tip, tipBlock, rows } = await getUnanchoredTxs(ctx.db);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    const results = tipBlock ? rows.map((r) => toUnanchoredTransactionResponse(r, tipBlock)) : [];
    const body: { total: number; results: TransactionResponse[] } = { total: results.length, results };
    res.json(body);
  });

  router.get('/extended/v1/microblock/:hash', async (req, res) => {
    markDeprecated(res);
    const raw = req.params.hash;
    if (redirectBareHash(res, raw, 'hash', 'a microblock hash', (h) => `/extended/v1/microblock/${h}`)) return;
    const hash = parseHash32(raw, 'hash', 'a microblock hash');
    const { tip, row } = await getMicroblock(ctx.db, hash);
    if (!row) throw new NotFoundError(`hash: no microblock with hash ${hash}`);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toMicroblockResponse(row));
  });

  return router.routes;
}
