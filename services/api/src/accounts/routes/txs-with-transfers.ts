import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { NotFoundError } from '@bda/common';
import type { PageLimits } from '../../env';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { parsePage, parsePrincipal, parseTxId } from '../../params';
import { getTxsWithTransfers, getTxWithTransfers } from '../datastore/txs-with-transfers';
import { toTxWithTransfersResponse } from '../mappers/txs-with-transfers';
import { withResultsJson } from '../../mappers/page-json';
import { parseHeightRange } from './account-params';
import { markDeprecated } from '../../deprecated';

/**
 * `/extended/v1/address/{principal}/transactions_with_transfers` (a page of its transactions, each with the STX, FT
 * and NFT transfers it sent or received in it) and `/{tx_id}/with_transfers` (one of them, STX transfers only).
 */
export function txsWithTransfersRoutes(db: Knex, limits: PageLimits): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/address/:principal/transactions_with_transfers', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const page = parsePage(req.query, limits.tx, { zeroMeansDefault: true });
    const range = await parseHeightRange(db, req.query);
    const { tip, total, results } = await getTxsWithTransfers(db, principal, page, range);
    if (!tip) throw new NotFoundError('no current block');
    markDeprecated(res);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    // JSON text with the page's joined items (`{"tx":…,"stx_sent":…,…}`, ADR 0046) copied in; `send` keeps the JSON type.
    res.send(withResultsJson({ ...page, total }, results));
  });

  router.get('/extended/v1/address/:principal/:tx_id/with_transfers', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const txId = parseTxId(req.params.tx_id);
    const { tip, row, abis } = await getTxWithTransfers(db, principal, txId);
    if (!row) throw new NotFoundError(`tx_id: no canonical transaction ${txId} of ${principal}`);
    markDeprecated(res);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toTxWithTransfersResponse(principal, row, abis, { tokens: false }));
  });

  return router.routes;
}
