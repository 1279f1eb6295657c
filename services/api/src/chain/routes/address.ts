import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { InputError, NotFoundError } from '@bda/common';
import { getAddressHistory, type HeightRange } from '../datastore/address-txs';
import { toTxPageJson } from '../mappers/tx';
import { respondNotModifiedIfFresh } from '../../http-cache';
import {
  MAX_BLOCK_HEIGHT,
  parseHeightOrHash,
  parsePage,
  parsePrincipal,
  queryBoolean,
  queryInt,
  queryString,
} from '../../params';
import type { RouteContext } from './context';

/** `/extended/v1/address/{principal}/transactions`: the principal's canonical history from the read model. */
export function addressRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/address/:principal/transactions', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const { limit, offset } = parsePage(req.query, ctx.limits.tx, { zeroMeansDefault: true });
    const rawHeight = queryString(req.query, 'height');
    const rawUntil = queryString(req.query, 'until_block');
    if (rawHeight !== undefined && rawUntil !== undefined) {
      throw new InputError('query parameter height: give either height (one block) or until_block (up to a block), not both');
    }
    const height =
      rawHeight === undefined ? undefined : queryInt(req.query, 'height', { default: 0, min: 0, max: MAX_BLOCK_HEIGHT });
    const until = rawUntil === undefined ? undefined : parseHeightOrHash(rawUntil, 'query parameter until_block');
    // Accepted for the reference API's clients: this history holds confirmed transactions only, and since Nakamoto
    // there are no unconfirmed microblock transactions to add.
    queryBoolean(req.query, 'unanchored');
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    let range: HeightRange = { kind: 'all' };
    if (height !== undefined) range = { kind: 'at', height };
    else if (until?.kind === 'height') range = { kind: 'until', height: until.height };
    else if (until?.kind === 'hash') range = { kind: 'untilHash', hash: until.hash };
    const { tip, total, results, untilHeight } = await getAddressHistory(ctx.db, principal, { limit, offset }, range);
    if (range.kind === 'untilHash' && untilHeight === null) {
      throw new NotFoundError(`until_block: no canonical block with block hash or index block hash ${range.hash}`);
    }
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    // JSON text with the page's joined kept texts copied in (`toTxPageJson`); `send` keeps the JSON type.
    res.send(toTxPageJson({ limit, offset, total }, results, exclude));
  });

  return router.routes;
}
