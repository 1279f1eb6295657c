import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { markDeprecated } from '../../deprecated';
import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import { toEventResponses } from '../../chain/mappers/event';
import { echo, parsePage, parsePrincipal, queryInt, queryString } from '../../params';
import {
  getContractLogPage,
  getContractLogs,
  getContractStatuses,
  getSmartContract,
  getSmartContractsByTrait,
} from '../datastore/contracts';
import { toSmartContractResponse } from '../mappers/smart-contract';

/** Page sizes of the contract lists, as the reference API's (`limit` 0–50, 20 when absent or 0). */
const CONTRACT_LIMITS = { default: 20, max: 50 };
/** Page sizes of a contract's v2 logs, as the reference API's events (`limit` 0–100, 20 when absent or 0). */
const LOG_LIMITS = { default: 20, max: 100 };
/** Most contracts one status request may name. */
const MAX_STATUS_IDS = 200;

/** A contract principal `<address>.<contract-name>`; anything else is a 400 naming `name`. */
function contractId(raw: string, name: string): string {
  const id = parsePrincipal(raw, name);
  if (!id.includes('.')) throw new InputError(`${name}: ${echo(raw)} is an address, not a contract (<address>.<contract-name>)`);
  return id;
}

/** The functions of a trait ABI as the deploys' ABIs must contain them (name, access, argument types, outputs). */
function traitFunctions(raw: string): unknown[] {
  let abi: unknown;
  try {
    abi = JSON.parse(raw);
  } catch {
    throw new InputError('query parameter trait_abi: is not JSON (a Clarity ABI with `functions`)');
  }
  const functions = (abi as { functions?: unknown } | null)?.functions;
  if (typeof abi !== 'object' || abi === null || !Array.isArray(functions)) {
    throw new InputError('query parameter trait_abi: must be a Clarity ABI object with a `functions` array');
  }
  return functions.map((f: unknown, i) => {
    const fn = f as { name?: unknown; access?: unknown; args?: unknown; outputs?: unknown } | null;
    if (typeof fn !== 'object' || fn === null || typeof fn.name !== 'string' || !Array.isArray(fn.args)) {
      throw new InputError(`query parameter trait_abi: functions[${i}] must have a name and an args array`);
    }
    return {
      name: fn.name,
      access: fn.access,
      args: fn.args.map((a: unknown) => ({ type: (a as { type?: unknown } | null)?.type ?? null })),
      outputs: fn.outputs,
    };
  });
}

/**
 * The contracts family: `/extended/v1/contract/{contract_id}` (its canonical deploy with source and ABI),
 * `/{contract_id}/events` (its logs, deprecated by the reference API), `/by_trait` (deploys whose ABI has a trait's
 * functions), `/extended/v2/smart-contracts/status` (deploy status of several contracts) and `/{contract_id}/logs`
 * (its logs, cursor-paginated).
 */
export function contractRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();

  // Before `/:contract_id`.
  router.get('/extended/v1/contract/by_trait', async (req, res) => {
    const raw = queryString(req.query, 'trait_abi');
    const functions = raw === undefined ? undefined : traitFunctions(raw);
    const page = parsePage(req.query, CONTRACT_LIMITS, { zeroMeansDefault: true });
    if (functions === undefined) throw new InputError('query parameter trait_abi: required (the trait as a Clarity ABI)');
    const rows = await getSmartContractsByTrait(db, functions, page);
    if (rows.length === 0) throw new NotFoundError('trait_abi: no canonical contract implements these functions');
    res.json({ ...page, results: rows.map(toSmartContractResponse) });
  });

  router.get('/extended/v1/contract/:contract_id', async (req, res) => {
    const id = contractId(req.params.contract_id, 'contract_id');
    const row = await getSmartContract(db, id);
    if (!row) throw new NotFoundError(`contract_id: no canonical deploy of ${id}`);
    res.json(toSmartContractResponse(row));
  });

  router.get('/extended/v1/contract/:contract_id/events', async (req, res) => {
    const id = contractId(req.params.contract_id, 'contract_id');
    const page = parsePage(req.query, CONTRACT_LIMITS, { zeroMeansDefault: true });
    const events = await getContractLogs(db, id, page);
    markDeprecated(res);
    res.json({ ...page, results: toEventResponses(events) });
  });

  // Offsets from a cursor go older only (the reference's schema allows negative ones its query cannot run).
  router.get('/extended/v2/smart-contracts/:contract_id/logs', async (req, res) => {
    const id = contractId(req.params.contract_id, 'contract_id');
    const limit = queryInt(req.query, 'limit', { default: 0, min: 0, max: LOG_LIMITS.max }) || LOG_LIMITS.default;
    const offset = queryInt(req.query, 'offset', { default: 0, min: 0, max: LOG_LIMITS.max * 10 });
    const rawCursor = queryString(req.query, 'cursor');
    let cursor: { height: number; eventIndex: number } | null = null;
    if (rawCursor !== undefined) {
      const m = /^([0-9]{1,10}):([0-9]{1,10}):([0-9]{1,10}):([0-9]{1,10})$/.exec(rawCursor);
      if (!m || Number(m[1]) > 2147483647 || Number(m[4]) > 2147483647) {
        throw new InputError(
          `query parameter cursor: must be <block height>:<microblock sequence>:<tx index>:<event index> as a page gives it, got ${echo(rawCursor)}`,
        );
      }
      cursor = { height: Number(m[1]), eventIndex: Number(m[4]) };
    }
    const page = await getContractLogPage(db, id, { limit, offset }, cursor);
    if (cursor !== null && page.current === null) throw new NotFoundError('query parameter cursor: no log event at or below it');
    res.json({
      limit,
      offset,
      total: page.total,
      next_cursor: page.next,
      prev_cursor: page.previous,
      cursor: page.current,
      results: toEventResponses(page.events),
    });
  });

  router.get('/extended/v2/smart-contracts/status', async (req, res) => {
    const raw = req.query['contract_id'];
    if (raw === undefined) throw new InputError('query parameter contract_id: required (one or more contract ids)');
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length > MAX_STATUS_IDS) throw new InputError(`query parameter contract_id: at most ${MAX_STATUS_IDS} contracts`);
    const ids = list.map((v) => {
      if (typeof v !== 'string') throw new InputError('query parameter contract_id: must be contract ids');
      return contractId(v, 'query parameter contract_id');
    });
    const found = new Map((await getContractStatuses(db, ids)).map((s) => [s.contract_id, s]));
    const body: Record<string, unknown> = {};
    for (const id of ids) {
      const s = found.get(id);
      body[id] = s
        ? {
            found: true,
            result: {
              status: s.status,
              tx_id: s.tx_id,
              contract_id: id,
              ...(s.block_height === null ? {} : { block_height: s.block_height }),
            },
          }
        : { found: false };
    }
    res.json(body);
  });

  return router.routes;
}
