import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { NotFoundError } from '@bda/common';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { parsePrincipal, queryBoolean } from '../../params';
import { getStxBalance } from '../datastore/stx-balance';
import { toAddressStxBalanceResponse, toStxBalanceResponse } from '../mappers/stx-balance';
import { toPrincipalStxBalanceResponse } from '../mappers/principal-stx-balance';
import { markDeprecated, parseUntilBlock } from './account-params';

/**
 * `/extended/v1/address/{principal}/stx` (at the tip with the mempool-aware fields, or at `until_block` without them)
 * , `/extended/v2/addresses/{principal}/balances/stx` (tip; mempool fields with `include_mempool=true`) and
 * `/extended/v3/principals/{principal}/balances/stx`.
 */
export function stxBalanceRoutes(db: Knex): Router {
  const router = express.Router();

  router.get('/extended/v1/address/:principal/stx', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const height = await parseUntilBlock(db, req.query);
    const { tip, balance, pending } = await getStxBalance(db, principal, height);
    if (!balance) throw new NotFoundError('no current block');
    markDeprecated(res);
    if (height !== null && respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toAddressStxBalanceResponse(balance, height === null ? pending : null));
  });

  router.get('/extended/v2/addresses/:principal/balances/stx', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const includeMempool = queryBoolean(req.query, 'include_mempool');
    const { tip, balance, pending } = await getStxBalance(db, principal, null);
    if (!balance) throw new NotFoundError('no current block');
    markDeprecated(res);
    if (!includeMempool && respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toStxBalanceResponse(balance, includeMempool ? pending : null));
  });

  // The v3 successor (not deprecated): available and locked apart, the mempool part only when something is pending.
  router.get('/extended/v3/principals/:principal/balances/stx', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const { balance, pending } = await getStxBalance(db, principal, null);
    if (!balance) throw new NotFoundError('no current block');
    res.json(toPrincipalStxBalanceResponse(balance, pending));
  });

  return router;
}
