import type { ParsedUrlQuery } from 'node:querystring';
import type { Router } from 'express';
import { NotFoundError } from '@bda/common';
import { echo, parsePage, parseTxId } from '../params';
import { expressRouter, type GetRoute } from '../plain-routes';
import { SERVER_VERSION } from '../version';
import { DEFAULT_PAGE_LIMITS, type PageLimit } from '../env';
import {
  type PaginatedResponse,
  toActivity,
  toBalance,
  toEtching,
  toHolder,
  toJson,
  toSimpleActivity,
} from './mappers/runes-mappers';
import { type EtchingParam, parseAddressParam, parseBlockParam, parseEtchingParam, parseOperations } from './routes/runes-params';
import * as q from './datastore/runes-queries';
import type { RunesDb } from './datastore/runes-db';

export interface RunesRouterDeps {
  /** Read-only access to the indexer's database: `createRunesDb` (own pool, generic plans) or `knexRunesDb`. */
  db: RunesDb;
  /** Page sizes (`API_RUNES_LIMIT_DEFAULT` / `API_RUNES_LIMIT_MAX`); the reference Runes API's 20 / 60 when omitted. */
  limits?: PageLimit;
  /** `server_version` of `GET /runes/v1/`. */
  serverVersion?: string;
}

/**
 * The `/runes/v1` family over the rune ledger the indexer maintains, as routes: the api serves them on plain
 * node:http (`plainRoutes`), `runesRouter` mounts the same handlers on express. Conventions: hashes and ids `0x` +
 * lower-case hex; amounts decimal strings in display units with exactly `divisibility` fraction digits;
 * `timestamp` Unix seconds; missing values `null`; every list `{limit, offset, total, results}` with `total` exact on
 * every page (also past the end). Block and transaction lists are in chain order; rune, address and etching lists newest first.
 */
export function runesRoutes(deps: RunesRouterDeps): GetRoute[] {
  const { db } = deps;
  const limits = deps.limits ?? DEFAULT_PAGE_LIMITS.runes;
  const serverVersion = deps.serverVersion ?? SERVER_VERSION;
  const page = (query: ParsedUrlQuery) => parsePage(query, limits);
  const list = <T>(p: q.Page, total: number, results: T[]) => {
    const body: PaginatedResponse<T> = { limit: p.limit, offset: p.offset, total, results };
    return toJson(body);
  };
  const unknownRune = (raw: string) => new NotFoundError(`etching: no rune ${echo(raw)}`);
  const etchingOf = (raw: string): EtchingParam => parseEtchingParam(raw);
  const route = (path: string, handle: GetRoute['handle']): GetRoute => ({ path, handle });

  return [
    route('/runes/v1/', async () => {
      const tip = await q.runesTip(db);
      return toJson({
        server_version: serverVersion,
        status: 'ready',
        block_height: tip?.block_height ?? null,
        block_hash: tip?.block_hash ?? null,
      });
    }),

    route('/runes/v1/blocks/:block/activity', async (params, query) => {
      const block = parseBlockParam(params.block!);
      const operations = parseOperations(query);
      const p = page(query);
      const result = await q.blockActivity(db, block, operations, p);
      if (!result) {
        throw new NotFoundError(
          block.kind === 'height'
            ? `block: no indexed block at height ${block.height}`
            : `block: no indexed block with hash ${block.hash}`,
        );
      }
      return list(p, result.total, result.rows.map(toActivity));
    }),

    route('/runes/v1/etchings', async (_params, query) => {
      const p = page(query);
      const result = await q.etchings(db, p);
      return list(
        p,
        result.total,
        result.rows.map((row) => toEtching(row, result.tip)),
      );
    }),

    route('/runes/v1/etchings/:etching', async (params) => {
      const row = await q.runeByEtching(db, etchingOf(params.etching!));
      if (!row) throw unknownRune(params.etching!);
      return toJson(toEtching(row, row.tip));
    }),

    route('/runes/v1/etchings/:etching/activity', async (params, query) => {
      const etching = etchingOf(params.etching!);
      const p = page(query);
      const result = await q.runeActivity(db, etching, p);
      if (!result) throw unknownRune(params.etching!);
      return list(p, result.total, result.rows.map(toSimpleActivity));
    }),

    route('/runes/v1/etchings/:etching/activity/:address', async (params, query) => {
      const etching = etchingOf(params.etching!);
      const address = parseAddressParam(params.address!);
      const p = page(query);
      const result = await q.runeAddressActivity(db, etching, address, p);
      if (!result) throw unknownRune(params.etching!);
      return list(p, result.total, result.rows.map(toSimpleActivity));
    }),

    route('/runes/v1/etchings/:etching/holders', async (params, query) => {
      const etching = etchingOf(params.etching!);
      const p = page(query);
      const result = await q.runeHolders(db, etching, p);
      if (!result) throw unknownRune(params.etching!);
      return list(
        p,
        result.total,
        result.rows.map((row) => toHolder(row, result.rune.divisibility)),
      );
    }),

    route('/runes/v1/etchings/:etching/holders/:address', async (params) => {
      const etching = etchingOf(params.etching!);
      const address = parseAddressParam(params.address!);
      const { rune, holder } = await q.runeHolder(db, etching, address);
      if (!rune) throw unknownRune(params.etching!);
      if (!holder) throw new NotFoundError(`address: ${address} holds no ${params.etching}`);
      return toJson(toHolder(holder, rune.divisibility));
    }),

    route('/runes/v1/addresses/:address/balances', async (params, query) => {
      const address = parseAddressParam(params.address!);
      const p = page(query);
      const result = await q.addressBalances(db, address, p);
      return list(p, result.total, result.rows.map(toBalance));
    }),

    route('/runes/v1/addresses/:address/activity', async (params, query) => {
      const address = parseAddressParam(params.address!);
      const p = page(query);
      const result = await q.addressActivity(db, address, p);
      return list(p, result.total, result.rows.map(toActivity));
    }),

    route('/runes/v1/transactions/:tx_id/activity', async (params, query) => {
      const txId = parseTxId(params.tx_id!);
      const p = page(query);
      const result = await q.transactionActivity(db, txId, p);
      return list(p, result.total, result.rows.map(toActivity));
    }),
  ];
}

/** The `/runes/v1` routes mounted on express. */
export function runesRouter(deps: RunesRouterDeps): Router {
  return expressRouter(runesRoutes(deps));
}
