import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { InputError, NotFoundError } from '@bda/common';
import { getPendingMempoolPage } from '../datastore/mempool';
import { getTxById } from '../datastore/txs';
import { noStore, respondNotModifiedIfFresh } from '../../http-cache';
import { toTxPageJson, toMempoolTransactionResponse, toTransactionResponse, withoutFunctionArgs } from '../mappers/tx';
import { parsePage, parsePrincipal, parseTxId, queryBoolean, queryEnum, queryString } from '../../params';
import type { RouteContext } from './context';

/** `/extended/v1/tx/mempool` and `/extended/v1/tx/{tx_id}`. */
export function transactionsRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  // Before `/:tx_id`, which would otherwise take "mempool" as a (malformed) transaction id.
  router.get('/extended/v1/tx/mempool', async (req, res) => {
    const { limit, offset } = parsePage(req.query, ctx.limits.tx, { zeroMeansDefault: true });
    const principal = (name: string) => {
      const raw = queryString(req.query, name);
      return raw === undefined ? undefined : parsePrincipal(raw, `query parameter ${name}`);
    };
    const filter = {
      senderAddress: principal('sender_address'),
      recipientAddress: principal('recipient_address'),
      address: principal('address'),
    };
    if (filter.address !== undefined && (filter.senderAddress !== undefined || filter.recipientAddress !== undefined)) {
      throw new InputError(
        'query parameter address: matches sender, recipient or contract already; do not combine it with sender_address or recipient_address',
      );
    }
    const orderBy = queryEnum(req.query, 'order_by', ['age', 'size', 'fee'] as const, 'age');
    const order = queryEnum(req.query, 'order', ['asc', 'desc'] as const, 'desc');
    // Accepted for the reference API's clients: since Nakamoto there are no unconfirmed microblock transactions.
    queryBoolean(req.query, 'unanchored');
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    const { texts, total } = await getPendingMempoolPage(ctx.db, { ...filter, limit, offset, orderBy, order });
    noStore(res);
    // JSON text with the kept list texts copied in (ADR 0041); `send` keeps the JSON type.
    res.send(toTxPageJson({ limit, offset, total }, texts, exclude));
  });

  router.get('/extended/v1/tx/:tx_id', async (req, res) => {
    const txId = parseTxId(req.params.tx_id);
    const page = parsePage(req.query, ctx.limits.event, { limit: 'event_limit', offset: 'event_offset', zeroMeansDefault: true });
    queryBoolean(req.query, 'unanchored');
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    const found = await getTxById(ctx.db, txId, page);
    if (!found) {
      throw new NotFoundError(`tx_id: transaction ${txId} is neither mined in a canonical block nor in the mempool`);
    }
    if (found.kind === 'mempool') {
      noStore(res);
      res.json(withoutFunctionArgs(toMempoolTransactionResponse(found.mempoolTx, found.abis), exclude));
      return;
    }
    if (respondNotModifiedIfFresh(req, res, found.tip)) return;
    res.json(withoutFunctionArgs(toTransactionResponse(found.tx, found.events, found.abis), exclude));
  });

  return router.routes;
}
