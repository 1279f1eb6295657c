import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { NotFoundError } from '@bda/common';
import type { NakamotoBlockResponse } from '../../api-types';
import { noStore, respondNotModifiedIfFresh } from '../../http-cache';
import { echo, parseHeightOrHash, parsePage } from '../../params';
import { InputError } from '@bda/common';
import { getAverageTimeRows, getBlockAtTime } from '../datastore/block-times';
import {
  getBurnBlock,
  getBurnBlockBlocks,
  getBurnBlockJsonPage,
  getBurnBlockPage,
  type BurnBlockKey,
} from '../datastore/burn-blocks';
import { getBlockTxs } from '../datastore/tx-lists';
import { toTxPageJson } from '../mappers/tx';
import { toBlockResponse } from '../mappers/block';
import { toBurnBlockJson, toBurnBlockResponse, type BurnBlockResponse } from '../mappers/burn-block';
import { int } from '../../mappers/row-values';
import type { RouteContext } from './context';

/** The reference's page sizes for burn blocks (its `BurnBlock` resource). */
const BURN_BLOCK_LIMITS = { default: 20, max: 30 };

function burnKey(raw: string): BurnBlockKey {
  const ref = parseHeightOrHash(raw, 'height_or_hash', { allowLatest: true });
  return ref.kind === 'height'
    ? { kind: 'height', height: ref.height }
    : ref.kind === 'hash'
      ? { kind: 'hash', hash: ref.hash }
      : { kind: 'latest' };
}

/**
 * `/extended/v2/burn-blocks…` (burn blocks as their canonical Stacks blocks see them, from `chain_burn_blocks`) and
 * the v2 block views beside the existing ones: average times, the block at a time, a block's transactions.
 */
export function v2BurnBlocksRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v2/burn-blocks', async (req, res) => {
    const { limit, offset } = parsePage(req.query, BURN_BLOCK_LIMITS, { zeroMeansDefault: true });
    const kept = await getBurnBlockJsonPage(ctx.db, { limit, offset });
    if (respondNotModifiedIfFresh(req, res, kept.tip)) return;
    if (kept.complete) {
      // `JSON.stringify` of the body below, from each burn block's kept text (migration 098).
      res.send(
        `{"limit":${limit},"offset":${offset},"total":${kept.total},"results":[${kept.rows.map(toBurnBlockJson).join(',')}]}`,
      );
      return;
    }
    // A burn block the kept text cannot show as JavaScript writes it: the page from its blocks.
    const page = await getBurnBlockPage(ctx.db, { limit, offset });
    const body: { limit: number; offset: number; total: number; results: BurnBlockResponse[] } = {
      limit,
      offset,
      total: page.total,
      results: page.rows.map(toBurnBlockResponse),
    };
    res.json(body);
  });

  router.get('/extended/v2/burn-blocks/:height_or_hash', async (req, res) => {
    const key = burnKey(req.params.height_or_hash);
    const { tip, row } = await getBurnBlock(ctx.db, key);
    if (!row)
      throw new NotFoundError(
        `height_or_hash: no burn block with canonical Stacks blocks matches ${echo(req.params.height_or_hash)}`,
      );
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toBurnBlockResponse(row));
  });

  router.get('/extended/v2/burn-blocks/:height_or_hash/blocks', async (req, res) => {
    const key = burnKey(req.params.height_or_hash);
    const { limit, offset } = parsePage(req.query, BURN_BLOCK_LIMITS, { zeroMeansDefault: true });
    const page = await getBurnBlockBlocks(ctx.db, key, { limit, offset });
    if (!page.found)
      throw new NotFoundError(
        `height_or_hash: no burn block with canonical Stacks blocks matches ${echo(req.params.height_or_hash)}`,
      );
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    const body: { limit: number; offset: number; total: number; results: NakamotoBlockResponse[] } = {
      limit,
      offset,
      total: page.total,
      results: page.rows.map(toBlockResponse),
    };
    res.json(body);
  });

  router.get(
    '/extended/v2/blocks/average-times',
    async (_req, res) => {
      const rows = await getAverageTimeRows(ctx.db);
      const body: Record<string, number> = { last_1h: 0, last_24h: 0, last_7d: 0, last_30d: 0 };
      for (const r of rows) {
        if (r.first_height === null || r.tip_height === null) continue;
        let n = r.tip_height - r.first_height + 1;
        let from = r.prev_time;
        if (from === null) {
          n -= 1;
          from = r.first_time;
        }
        body[r.window_name] = n > 0 ? (int(r.tip_time) - int(from)) / n : 0;
      }
      // Relative to the clock, not only to the tip: never cached, and no data epoch (the gateway never keeps it).
      noStore(res);
      res.json(body);
    },
    { dataEpoch: false },
  );

  router.get('/extended/v2/blocks/by-block-time/:timestamp', async (req, res) => {
    const raw = req.params.timestamp;
    if (!/^[0-9]{1,15}$/.test(raw)) {
      throw new InputError(`timestamp: must be a Unix time in seconds (digits), got ${echo(raw)}`);
    }
    const { tip, block } = await getBlockAtTime(ctx.db, Number(raw));
    if (!block) throw new NotFoundError(`timestamp: no canonical block at or before ${raw}`);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toBlockResponse(block));
  });

  router.get('/extended/v2/blocks/:height_or_hash/transactions', async (req, res) => {
    const ref = parseHeightOrHash(req.params.height_or_hash, 'height_or_hash', { allowLatest: true });
    const { limit, offset } = parsePage(req.query, ctx.limits.tx, { zeroMeansDefault: true });
    const key =
      ref.kind === 'height'
        ? { kind: 'height' as const, height: ref.height }
        : ref.kind === 'hash'
          ? { kind: 'anyHash' as const, hash: ref.hash }
          : { kind: 'latest' as const };
    const page = await getBlockTxs(ctx.db, key, { limit, offset, order: 'asc' });
    if (!page.found) throw new NotFoundError(`height_or_hash: no canonical block matches ${echo(req.params.height_or_hash)}`);
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.send(toTxPageJson({ limit, offset, total: page.total }, page.results));
  });

  return router.routes;
}
