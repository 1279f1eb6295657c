import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import type { PageLimits } from '../../env';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { echo, parsePage, parsePrincipal, parseTxId, queryBoolean, queryString } from '../../params';
import { blockHeightOf, getAddressTransactions, getAddressTxEvents } from '../datastore/address-transactions';
import { toAddressTransactionEventResponse, toAddressTransactionsPageJson } from '../mappers/txs-with-transfers';
import { markDeprecated } from '../../deprecated';

/** `<index block hash>:<microblock sequence>:<tx index>`, as the list's cursors are written. */
const CURSOR = /^(0x[0-9a-fA-F]{64}):([0-9]{1,10}):([0-9]{1,10})$/;

/**
 * `/extended/v2/addresses/{address}/transactions` (its transactions, each with what it moved in STX and how many of
 * its asset events of each kind; cursor or offset paging) and `/transactions/{tx_id}/events` (its asset events in one
 * transaction). Both deprecated by the reference API.
 */
export function addressTransactionsRoutes(db: Knex, limits: PageLimits): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v2/addresses/:address/transactions', async (req, res) => {
    const principal = parsePrincipal(req.params.address, 'address');
    const page = parsePage(req.query, limits.tx, { zeroMeansDefault: true });
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    const rawCursor = queryString(req.query, 'cursor');
    let cursor: { height: number; sequence: number; txIndex: number } | null = null;
    if (rawCursor !== undefined) {
      const m = CURSOR.exec(rawCursor);
      if (!m) {
        throw new InputError(
          `query parameter cursor: must be <index block hash>:<microblock sequence>:<tx index> as a page's cursor gives it, got ${echo(rawCursor)}`,
        );
      }
      const [sequence, txIndex] = [Number(m[2]), Number(m[3])];
      if (sequence > 2_147_483_647 || txIndex > 2_147_483_647) {
        throw new InputError(
          `query parameter cursor: microblock sequence and tx index must be at most 2147483647, got ${echo(rawCursor)}`,
        );
      }
      const height = await blockHeightOf(db, m[1]!.toLowerCase());
      if (height === null)
        throw new NotFoundError(`query parameter cursor: no block with index block hash ${m[1]!.toLowerCase()}`);
      cursor = { height, sequence, txIndex };
    }
    const { tip, total, results, ...cursors } = await getAddressTransactions(db, principal, page, cursor);
    markDeprecated(res);
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    // JSON text with the page's joined items copied in (ADR 0046); `send` keeps the JSON type.
    const head = {
      ...page,
      total,
      next_cursor: cursors.nextCursor,
      prev_cursor: cursors.prevCursor,
      cursor: cursors.cursor,
    };
    res.send(toAddressTransactionsPageJson(head, results, exclude));
  });

  router.get('/extended/v2/addresses/:address/transactions/:tx_id/events', async (req, res) => {
    const principal = parsePrincipal(req.params.address, 'address');
    const txId = parseTxId(req.params.tx_id);
    const page = parsePage(req.query, limits.tx, { zeroMeansDefault: true });
    const { found, total, events } = await getAddressTxEvents(db, principal, txId, page);
    if (!found) throw new NotFoundError(`tx_id: no canonical transaction ${txId}`);
    markDeprecated(res);
    res.json({ ...page, total, results: events.map(toAddressTransactionEventResponse) });
  });

  return router.routes;
}
