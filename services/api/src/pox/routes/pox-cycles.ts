import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { echo, parsePage } from '../../params';
import {
  getPoxCycle,
  getPoxCyclePage,
  getPoxCycleSigner,
  getPoxCycleSigners,
  getPoxCycleSignerStackers,
} from '../datastore/pox-cycles';
import { toPoxCycleResponse, toPoxSignerResponse, toPoxStackerResponse } from '../mappers/pox-cycle';

/** The reference's page sizes: `PoxCycle` for cycles, `Signer` for signers, `Stacker` for stackers. */
const CYCLE_LIMITS = { default: 20, max: 60 };
const SIGNER_LIMITS = { default: 100, max: 250 };
const STACKER_LIMITS = { default: 100, max: 200 };

/** `{cycle_number}`: a reward cycle, digits, 0 to int4 max. */
function parseCycle(raw: string): number {
  const n = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n > 2_147_483_647) {
    throw new InputError(`cycle_number: must be a reward cycle number, an integer from 0 to 2147483647, got ${echo(raw)}`);
  }
  return n;
}

/** `{signer_key}`: a compressed public key, 33 bytes of hex with or without `0x`, any case → `0x` lower-case. */
function parseSignerKey(raw: string): string {
  if (!/^(0x)?[0-9a-fA-F]{66}$/.test(raw)) {
    throw new InputError(`signer_key: must be a signer public key (66 hex digits, optionally 0x-prefixed), got ${echo(raw)}`);
  }
  return `0x${raw.slice(raw.length - 66).toLowerCase()}`;
}

const cycleNotFound = (n: number) => new NotFoundError(`cycle_number: PoX cycle ${n} not found`);

/**
 * `/extended/v2/pox/cycles…`: the reward cycles whose reward set a canonical block carried (the indexer's `pox_cycles`
 * and `pox_cycle_signers`, from the node's `reward_set`), their signers, and the stackers behind a signer (from the
 * pox-4 events), as the reference API answers them.
 */
export function poxCycleRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v2/pox/cycles', async (req, res) => {
    const { limit, offset } = parsePage(req.query, CYCLE_LIMITS, { zeroMeansDefault: true });
    const page = await getPoxCyclePage(db, { limit, offset });
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.json({ limit, offset, total: page.total, results: page.rows.map(toPoxCycleResponse) });
  });

  router.get('/extended/v2/pox/cycles/:cycle_number', async (req, res) => {
    const n = parseCycle(req.params.cycle_number);
    const found = await getPoxCycle(db, n);
    if (!found.cycle) throw cycleNotFound(n);
    if (respondNotModifiedIfFresh(req, res, found.tip)) return;
    res.json(toPoxCycleResponse(found.cycle));
  });

  router.get('/extended/v2/pox/cycles/:cycle_number/signers', async (req, res) => {
    const n = parseCycle(req.params.cycle_number);
    const { limit, offset } = parsePage(req.query, SIGNER_LIMITS, { zeroMeansDefault: true });
    const page = await getPoxCycleSigners(db, n, { limit, offset });
    if (!page.found) throw cycleNotFound(n);
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.json({ limit, offset, total: page.total, results: page.rows.map(toPoxSignerResponse) });
  });

  router.get('/extended/v2/pox/cycles/:cycle_number/signers/:signer_key', async (req, res) => {
    const n = parseCycle(req.params.cycle_number);
    const key = parseSignerKey(req.params.signer_key);
    const found = await getPoxCycleSigner(db, n, key);
    if (!found.found) throw cycleNotFound(n);
    if (!found.signer) throw new NotFoundError(`signer_key: no signer ${key} in PoX cycle ${n}`);
    if (respondNotModifiedIfFresh(req, res, found.tip)) return;
    res.json(toPoxSignerResponse(found.signer));
  });

  router.get('/extended/v2/pox/cycles/:cycle_number/signers/:signer_key/stackers', async (req, res) => {
    const n = parseCycle(req.params.cycle_number);
    const key = parseSignerKey(req.params.signer_key);
    const { limit, offset } = parsePage(req.query, STACKER_LIMITS, { zeroMeansDefault: true });
    const page = await getPoxCycleSignerStackers(db, n, key, { limit, offset });
    if (!page.cycleFound) throw cycleNotFound(n);
    if (!page.signerFound) throw new NotFoundError(`signer_key: no signer ${key} in PoX cycle ${n}`);
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.json({ limit, offset, total: page.total, results: page.rows.map(toPoxStackerResponse) });
  });

  return router.routes;
}
