import type { Knex } from 'knex';
import type { GetRoute } from '../plain-routes';
import { poxCycleRoutes } from './routes/pox-cycles';
import { poxEventRoutes } from './routes/pox-events';

/**
 * The PoX family (issue 24): the decoded `print` events of the pox-2/3/4 contracts (`/extended/v1/{pox}/…`) and the
 * reward cycles with their signers and stackers (`/extended/v2/pox/…`), read from the read models the indexer keeps in
 * each block's transaction (`services/indexer/src/pox/`), shapes as the reference API's.
 */
export function poxRoutes(db: Knex): GetRoute[] {
  return [...poxCycleRoutes(db), ...poxEventRoutes(db)];
}
