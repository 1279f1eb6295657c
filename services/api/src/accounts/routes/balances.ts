import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { NotFoundError } from '@bda/common';
import { parsePrincipal } from '../../params';
import { getStxBalance } from '../datastore/stx-balance';
import { getTokenBalanceMapsJson } from '../datastore/token-balances';
import { toAddressStxBalanceResponse } from '../mappers/stx-balance';
import { parseUntilBlock } from './account-params';
import { markDeprecated } from '../../deprecated';

/** `/extended/v1/address/{principal}/balances`: STX, every FT and NFT count, at the tip or at `until_block`. */
export function balancesRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();
  router.get('/extended/v1/address/:principal/balances', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const until = await parseUntilBlock(db, req.query);
    const { balance, pending } = await getStxBalance(db, principal, until);
    if (!balance) throw new NotFoundError('no current block');
    // The token reads at the STX read's height: a block arriving in between does not split the answer.
    const height = until === null ? null : balance.height;
    const tokens = await getTokenBalanceMapsJson(db, principal, height);
    markDeprecated(res);
    // The token maps are JSON written by PostgreSQL (`getTokenBalanceMapsJson`).
    const stx = JSON.stringify(toAddressStxBalanceResponse(balance, until === null ? pending : null));
    res.type('application/json').send(`{"stx":${stx},"fungible_tokens":${tokens.ft},"non_fungible_tokens":${tokens.nft}}`);
  });
  return router.routes;
}
