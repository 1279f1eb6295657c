import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { parsePage, parsePrincipal, parseTxId, queryBoolean, queryString, echo, MAX_BLOCK_HEIGHT } from '../../params';
import { getPoolDelegations, getPoxEventPage, getPoxStackerEvents, getPoxTxEvents } from '../datastore/pox-events';
import { toPoolDelegationResponse, toPoxEventResponse } from '../mappers/pox-event';

/** The `{pox}` path segment of the reference API's v1 PoX routes → the contract version. */
const POX_VERSIONS: ReadonlyArray<readonly [segment: string, version: number]> = [
  ['pox2', 2],
  ['pox3', 3],
  ['pox4', 4],
];

/** The reference's page sizes: its `Pox2Event` resource for event lists, `Stacker` for a pool's members. */
const EVENT_LIMITS = { default: 96, max: 200 };
const DELEGATION_LIMITS = { default: 100, max: 200 };

/** An optional block height query parameter from 1 (`after_block`, `height`). */
function queryHeight(query: Record<string, unknown>, name: string): number | undefined {
  const raw = queryString(query, name);
  if (raw === undefined) return undefined;
  const n = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_BLOCK_HEIGHT) {
    throw new InputError(`query parameter ${name}: must be a block height from 1 to ${MAX_BLOCK_HEIGHT}, got ${echo(raw)}`);
  }
  return n;
}

/**
 * `/extended/v1/{pox}/…` for `pox2`, `pox3` and `pox4`: the decoded `print` events of that PoX contract (the indexer's
 * `pox_events`), newest first, as the reference API lists them: all of them, a transaction's, a stacker's, and a
 * pool's current members.
 */
export function poxEventRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();
  // One route per contract and path (not a `:pox` parameter): the served paths are the documented ones.
  for (const [segment, version] of POX_VERSIONS) addPoxEventRoutes(router, db, `/extended/v1/${segment}`, version);
  return router.routes;
}

function addPoxEventRoutes(router: ReadRoutes, db: Knex, base: string, version: number): void {
  router.get(`${base}/events`, async (req, res) => {
    const { limit, offset } = parsePage(req.query, EVENT_LIMITS, { zeroMeansDefault: true });
    const page = await getPoxEventPage(db, version, { limit, offset });
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.json({ limit, offset, results: page.rows.map(toPoxEventResponse) });
  });

  router.get(`${base}/tx/:tx_id`, async (req, res) => {
    const txId = parseTxId(req.params['tx_id'] as string);
    const found = await getPoxTxEvents(db, version, txId);
    if (!found.found) throw new NotFoundError(`tx_id: could not find transaction by ID ${txId}`);
    if (respondNotModifiedIfFresh(req, res, found.tip)) return;
    res.json({ results: found.rows.map(toPoxEventResponse) });
  });

  router.get(`${base}/stacker/:principal`, async (req, res) => {
    const principal = parsePrincipal(req.params['principal'] as string);
    const found = await getPoxStackerEvents(db, version, principal);
    if (respondNotModifiedIfFresh(req, res, found.tip)) return;
    res.json({ results: found.rows.map(toPoxEventResponse) });
  });

  router.get(`${base}/:pool_principal/delegations`, async (req, res) => {
    const pool = parsePrincipal(req.params['pool_principal'] as string, 'pool_principal');
    const { limit, offset } = parsePage(req.query, DELEGATION_LIMITS, { zeroMeansDefault: true });
    const afterBlock = queryHeight(req.query, 'after_block') ?? 0;
    const height = queryHeight(req.query, 'height') ?? null;
    queryBoolean(req.query, 'unanchored'); // accepted as the reference does; anchored blocks are all there is here
    const page = await getPoolDelegations(db, { version, pool, afterBlock, height, limit, offset });
    if (!page.blockFound) throw new NotFoundError(`height: no canonical block at height ${height ?? 'of the tip'}`);
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.json({ limit, offset, total: page.total, results: page.rows.map(toPoolDelegationResponse) });
  });
}
