import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { parsePage } from '../../params';
import { getBurnchainRewardPage, getBurnchainRewardTotal, getRewardSlotHolderPage } from '../datastore/burnchain-rewards';
import {
  parseBurnchainAddress,
  toBurnchainRewardResponse,
  toRewardSlotHolderResponse,
  type BurnchainRewardListResponse,
  type BurnchainRewardSlotHolderListResponse,
  type BurnchainRewardsTotalResponse,
} from '../mappers/burnchain-reward';
import type { RouteContext } from './context';

/** The reference API's page sizes of its burnchain lists (`ResourceType.Burnchain`): 96 by default, 250 at most. */
const BURNCHAIN_PAGE_LIMIT = { default: 96, max: 250 } as const;

/**
 * `/extended/v1/burnchain/…`: PoX reward slot holders and rewards from the node's `/new_burn_block` payloads, of the
 * canonical burn blocks only, newest first, as the indexer keeps them (migration 060). `{address}` is a Bitcoin
 * address or a Stacks address (see `parseBurnchainAddress`). No ETag: burn blocks move independently of the Stacks
 * tip the other chain reads are tagged with.
 */
export function burnchainRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();
  const page = (query: Record<string, unknown>) => parsePage(query, BURNCHAIN_PAGE_LIMIT, { zeroMeansDefault: true });

  router.get('/extended/v1/burnchain/reward_slot_holders', async (req, res) => {
    const { limit, offset } = page(req.query);
    const { total, rows } = await getRewardSlotHolderPage(ctx.db, { limit, offset });
    const body: BurnchainRewardSlotHolderListResponse = { limit, offset, total, results: rows.map(toRewardSlotHolderResponse) };
    res.json(body);
  });

  router.get('/extended/v1/burnchain/reward_slot_holders/:address', async (req, res) => {
    const address = parseBurnchainAddress(req.params.address);
    const { limit, offset } = page(req.query);
    const { total, rows } = await getRewardSlotHolderPage(ctx.db, { limit, offset, address });
    const body: BurnchainRewardSlotHolderListResponse = { limit, offset, total, results: rows.map(toRewardSlotHolderResponse) };
    res.json(body);
  });

  router.get('/extended/v1/burnchain/rewards', async (req, res) => {
    const { limit, offset } = page(req.query);
    const rows = await getBurnchainRewardPage(ctx.db, { limit, offset });
    const body: BurnchainRewardListResponse = { limit, offset, results: rows.map(toBurnchainRewardResponse) };
    res.json(body);
  });

  router.get('/extended/v1/burnchain/rewards/:address', async (req, res) => {
    const recipient = parseBurnchainAddress(req.params.address);
    const { limit, offset } = page(req.query);
    const rows = await getBurnchainRewardPage(ctx.db, { limit, offset, recipient });
    const body: BurnchainRewardListResponse = { limit, offset, results: rows.map(toBurnchainRewardResponse) };
    res.json(body);
  });

  router.get('/extended/v1/burnchain/rewards/:address/total', async (req, res) => {
    const recipient = parseBurnchainAddress(req.params.address);
    const body: BurnchainRewardsTotalResponse = {
      reward_recipient: recipient,
      reward_amount: await getBurnchainRewardTotal(ctx.db, recipient),
    };
    res.json(body);
  });

  return router.routes;
}
