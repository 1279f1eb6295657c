import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { NotFoundError } from '@bda/common';
import { parsePrincipal } from '../../params';
import { StxBalanceLoader } from '../datastore/stx-balance';
import { getTokenBalanceMapsJson } from '../datastore/token-balances';
import { toAddressStxBalanceResponse } from '../mappers/stx-balance';
import { parseUntilBlock } from './account-params';
import { markDeprecated } from '../../deprecated';

/** `/extended/v1/address/{principal}/balances`: STX, every FT and NFT count, at the tip or at `until_block`. */
export function balancesRoutes(db: Knex): GetRoute[] {
  // The reads of one turn of the event loop share a statement (ADR 0028); the STX balance read brings the kept token
  // maps now along (one statement a request, ADR 0047).
  const stxBalances = new StxBalanceLoader(db, { tokenMaps: true });
  const router = new ReadRoutes();
  router.get('/extended/v1/address/:principal/balances', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const until = await parseUntilBlock(db, req.query);
    const { balance, pending, tokenMaps } = await stxBalances.load(principal, until);
    if (!balance) throw new NotFoundError('no current block');
    // At the tip the kept maps read with the balance; at `until_block` the maps at the STX read's height (capped at the
    // tip), written by PostgreSQL from the change rows.
    const tokens = until === null ? tokenMaps! : await getTokenBalanceMapsJson(db, principal, balance.height);
    markDeprecated(res);
    // The token maps are JSON text kept by the indexer or written by PostgreSQL (`getTokenBalanceMapsJson`), sent as
    // parts: the FT map of 1,000 kinds is 127 kB, which one spliced string copied twice more (ADR 0028 addendum).
    const stx = JSON.stringify(toAddressStxBalanceResponse(balance, until === null ? pending : null));
    res
      .type('application/json')
      .send([`{"stx":${stx},"fungible_tokens":`, tokens.ft, ',"non_fungible_tokens":', tokens.nft, '}']);
  });
  return router.routes;
}
