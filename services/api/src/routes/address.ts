import express, { type Router } from 'express';
import type { AddressTransactionsListResponse } from '../api-types';
import { getAddressTxCount, getAddressTxPage } from '../datastore/address-txs';
import { getChainTip } from '../datastore/chain-tip';
import { getContractAbis } from '../datastore/contract-abis';
import { readSnapshot } from '../datastore/snapshot';
import { getCanonicalTxsByKeys } from '../datastore/txs';
import { respondNotModifiedIfFresh } from '../http-cache';
import { toTransactionResponse } from '../mappers/tx';
import { parsePage, parsePrincipal } from '../params';
import type { RouteContext } from './context';

/** `/extended/v1/address/{principal}/transactions`: the principal's canonical history from the read model. */
export function addressRouter(ctx: RouteContext): Router {
  const router = express.Router();

  router.get('/extended/v1/address/:principal/transactions', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const { limit, offset } = parsePage(req.query, ctx.limits.tx);
    const { tip, total, rows, abis } = await readSnapshot(ctx.db, async (trx) => {
      const tip = await getChainTip(trx);
      const total = await getAddressTxCount(trx, principal);
      const keys = offset < total ? await getAddressTxPage(trx, principal, { limit, offset }) : [];
      const rows = await getCanonicalTxsByKeys(trx, keys);
      return { tip, total, rows, abis: await getContractAbis(trx, rows) };
    });
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    const body: AddressTransactionsListResponse = {
      limit,
      offset,
      total,
      results: rows.map((r) => toTransactionResponse(r, [], abis)),
    };
    res.json(body);
  });

  return router;
}
