import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { NotFoundError } from '@bda/common';
import { parsePrincipal } from '../../params';
import { getStxBalance } from '../datastore/stx-balance';
import { getTokenBalances } from '../datastore/token-balances';
import { toAddressStxBalanceResponse } from '../mappers/stx-balance';
import { toFtBalancesResponse, toNftBalancesResponse } from '../mappers/token-balances';
import { markDeprecated, parseUntilBlock } from './account-params';

/** `/extended/v1/address/{principal}/balances`: STX, every FT and NFT count, at the tip or at `until_block`. */
export function balancesRoutes(db: Knex): Router {
  const router = express.Router();
  router.get('/extended/v1/address/:principal/balances', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const until = await parseUntilBlock(db, req.query);
    const { balance, pending } = await getStxBalance(db, principal, until);
    if (!balance) throw new NotFoundError('no current block');
    // The token reads at the STX read's height: a block arriving in between does not split the answer.
    const height = until === null ? null : balance.height;
    const [ft, nft] = await Promise.all([
      getTokenBalances(db, principal, 'ft', height),
      getTokenBalances(db, principal, 'nft', height),
    ]);
    markDeprecated(res);
    res.json({
      stx: toAddressStxBalanceResponse(balance, until === null ? pending : null),
      fungible_tokens: toFtBalancesResponse(ft),
      non_fungible_tokens: toNftBalancesResponse(nft),
    });
  });
  return router;
}
