import type { Knex } from 'knex';
import type { PageLimits } from '../env';
import type { GetRoute } from '../plain-routes';
import { addressActivityRoutes } from './routes/address-activity';
import { addressTransactionsRoutes } from './routes/address-transactions';
import { balancesRoutes } from './routes/balances';
import { ftBalanceRoutes } from './routes/ft-balances';
import { principalPositionsRoutes } from './routes/principal-positions';
import { stxSupplyRoutes } from './routes/stx-supply';
import { tokenRoutes } from './routes/tokens';
import { txsWithTransfersRoutes } from './routes/txs-with-transfers';
import { v3TransactionRoutes } from './routes/v3-transactions';

/**
 * The accounts family (ADR 0024): an address's STX and token balances, at the tip or at a height, and its nonces; read from the
 * balance read models the indexer keeps in each block's transaction (one index read a balance, no sum over events). Also
 * its activity as the reference API lists it: asset events, inbound transfers, pending transactions, and its
 * transactions with the transfers it made in each (v1 and v2 forms); and the token lists (NFT holdings, history and
 * mints, a fungible token's holders); the v3 transaction lists (all, a principal's with its balance changes, the
 * mempool's) and the STX supply. `lookups` are `accountLookupRoutes` (STX balances and nonces). All are served on plain
 * node:http (`read-routes.ts`, ADR 0030).
 */
export function accountRoutes(db: Knex, limits: PageLimits, lookups: readonly GetRoute[]): GetRoute[] {
  return [
    ...lookups,
    ...balancesRoutes(db),
    ...ftBalanceRoutes(db),
    ...addressActivityRoutes(db, limits),
    ...txsWithTransfersRoutes(db, limits),
    ...addressTransactionsRoutes(db, limits),
    ...principalPositionsRoutes(db),
    ...tokenRoutes(db),
    ...v3TransactionRoutes(db, limits),
    ...stxSupplyRoutes(db),
  ];
}
