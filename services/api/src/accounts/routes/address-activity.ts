import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { NotFoundError } from '@bda/common';
import type { PageLimits } from '../../env';
import { noStore, respondNotModifiedIfFresh } from '../../http-cache';
import { parsePage, parsePrincipal, queryBoolean } from '../../params';
import { getPendingMempoolPage } from '../../chain/datastore/mempool';
import { toEventResponses } from '../../chain/mappers/event';
import { toTxPageJson } from '../../chain/mappers/tx';
import { getAddressAssets } from '../datastore/address-assets';
import { getInboundStxTransfers } from '../datastore/stx-inbound';
import { parseHeightRange, parseUntilBlock } from './account-params';
import { markDeprecated } from '../../deprecated';

/**
 * `/extended/v1/address/{principal}/assets` (its asset events and STX locks), `/stx_inbound` (STX transfers to it with
 * their memos) and `/mempool` (its pending transactions), all deprecated by the reference API.
 */
export function addressActivityRoutes(db: Knex, limits: PageLimits): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/address/:principal/assets', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const page = parsePage(req.query, limits.event, { zeroMeansDefault: true });
    const height = await parseUntilBlock(db, req.query);
    const { tip, total, events } = await getAddressAssets(db, principal, page, height);
    if (!tip) throw new NotFoundError('no current block');
    markDeprecated(res);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json({ ...page, total, results: toEventResponses(events) });
  });

  router.get('/extended/v1/address/:principal/stx_inbound', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const page = parsePage(req.query, limits.tx, { zeroMeansDefault: true });
    const range = await parseHeightRange(db, req.query);
    const { tip, total, results } = await getInboundStxTransfers(db, principal, page, range);
    if (!tip) throw new NotFoundError('no current block');
    markDeprecated(res);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json({
      ...page,
      total,
      results: results.map((r) => ({
        sender: r.sender,
        amount: r.amount,
        memo: r.memo,
        block_height: r.block_height,
        tx_id: r.tx_id,
        transfer_type: r.transfer_type,
        tx_index: r.tx_index,
      })),
    });
  });

  router.get('/extended/v1/address/:principal/mempool', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const page = parsePage(req.query, limits.tx, { zeroMeansDefault: true });
    // Accepted for the reference API's clients: since Nakamoto there are no unconfirmed microblock transactions.
    queryBoolean(req.query, 'unanchored');
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    const { texts, total } = await getPendingMempoolPage(db, { address: principal, ...page });
    markDeprecated(res);
    noStore(res);
    // JSON text with the kept list texts copied in (ADR 0041).
    res.send(toTxPageJson({ ...page, total }, texts, exclude));
  });

  return router.routes;
}
