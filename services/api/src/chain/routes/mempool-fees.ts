import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { noStore } from '../../http-cache';
import { getMempoolFees, type DbMempoolFeeRow } from '../datastore/mempool-fees';
import type { RouteContext } from './context';

interface FeePriorities {
  no_priority: number;
  low_priority: number;
  medium_priority: number;
  high_priority: number;
}

/** The reference's `/extended/v2/mempool/fees`: `all` always (zeros for an empty mempool), a type only when pending. */
interface MempoolFeesResponse {
  all: FeePriorities;
  token_transfer?: FeePriorities;
  contract_call?: FeePriorities;
  smart_contract?: FeePriorities;
}

function priorities(r: DbMempoolFeeRow): FeePriorities {
  return {
    no_priority: Number(r.no_priority ?? 0),
    low_priority: Number(r.low_priority ?? 0),
    medium_priority: Number(r.medium_priority ?? 0),
    high_priority: Number(r.high_priority ?? 0),
  };
}

/** `/extended/v2/mempool/fees`: fee priorities from the pending transactions. Not cached. */
export function mempoolFeesRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v2/mempool/fees', async (_req, res) => {
    const rows = await getMempoolFees(ctx.db);
    const body: MempoolFeesResponse = { all: { no_priority: 0, low_priority: 0, medium_priority: 0, high_priority: 0 } };
    for (const r of rows) {
      if (r.type_id === null) body.all = priorities(r);
      else if (r.type_id === 'token_transfer' || r.type_id === 'contract_call' || r.type_id === 'smart_contract') {
        body[r.type_id] = priorities(r);
      }
    }
    noStore(res);
    res.json(body);
  });

  return router.routes;
}
