import express, { type Response, type Router } from 'express';
import type { Knex } from 'knex';
import { NotFoundError } from '@bda/common';
import { parsePage, parseTxId } from '../params';
import { SERVER_VERSION } from '../version';
import { type RunesPageLimits, runesPageLimitsFromEnv } from './env';
import { type Paginated, toActivity, toBalance, toEtching, toHolder, toJson, toSimpleActivity } from './mappers';
import { type EtchingParam, parseAddressParam, parseBlockParam, parseEtchingParam, parseOperations } from './params';
import * as q from './queries';

export interface RunesRouterDeps {
  /** Read-only access to the indexer's database. */
  db: Knex;
  /** Page sizes; `API_RUNES_LIMIT_DEFAULT` / `API_RUNES_LIMIT_MAX` (20 / 60) when omitted. */
  limits?: RunesPageLimits;
  /** `server_version` of `GET /runes/v1/`. */
  serverVersion?: string;
}

/**
 * The `/runes/v1` family over the rune ledger the indexer maintains. Conventions: hashes and ids `0x` + lower-case
 * hex; amounts decimal strings in display units with exactly `divisibility` fraction digits; `timestamp` Unix
 * seconds; missing values `null`; every list `{limit, offset, total, results}` with `total` exact on every page (also
 * past the end). Block and transaction lists are in chain order; rune, address and etching lists newest first.
 */
export function runesRouter(deps: RunesRouterDeps): Router {
  const { db } = deps;
  const limits = deps.limits ?? runesPageLimitsFromEnv();
  const serverVersion = deps.serverVersion ?? SERVER_VERSION;
  const router = express.Router();
  const page = (query: Record<string, unknown>) => parsePage(query, limits);
  const send = (res: Response, body: unknown) => res.type('application/json').send(toJson(body));
  const list = <T>(res: Response, p: q.Page, total: number, results: T[]) => {
    const body: Paginated<T> = { limit: p.limit, offset: p.offset, total, results };
    send(res, body);
  };
  const unknownRune = (raw: string) => new NotFoundError(`etching: no rune ${JSON.stringify(raw)}`);
  const etchingOf = (raw: string): EtchingParam => parseEtchingParam(raw);

  router.get('/runes/v1/', async (_req, res) => {
    const tip = await q.runesTip(db);
    send(res, {
      server_version: serverVersion,
      status: 'ready',
      block_height: tip?.block_height ?? null,
      block_hash: tip?.block_hash ?? null,
    });
  });

  router.get('/runes/v1/blocks/:block/activity', async (req, res) => {
    const block = parseBlockParam(req.params.block);
    const operations = parseOperations(req.query);
    const p = page(req.query);
    const result = await q.blockActivity(db, block, operations, p);
    if (!result) {
      throw new NotFoundError(
        block.kind === 'height'
          ? `block: no indexed block at height ${block.height}`
          : `block: no indexed block with hash ${block.hash}`,
      );
    }
    list(res, p, result.total, result.rows.map(toActivity));
  });

  router.get('/runes/v1/etchings', async (req, res) => {
    const p = page(req.query);
    const result = await q.etchings(db, p);
    list(
      res,
      p,
      result.total,
      result.rows.map((row) => toEtching(row, result.tip)),
    );
  });

  router.get('/runes/v1/etchings/:etching', async (req, res) => {
    const row = await q.runeByEtching(db, etchingOf(req.params.etching));
    if (!row) throw unknownRune(req.params.etching);
    send(res, toEtching(row, row.tip));
  });

  router.get('/runes/v1/etchings/:etching/activity', async (req, res) => {
    const etching = etchingOf(req.params.etching);
    const p = page(req.query);
    const result = await q.runeActivity(db, etching, p);
    if (!result) throw unknownRune(req.params.etching);
    list(res, p, result.total, result.rows.map(toSimpleActivity));
  });

  router.get('/runes/v1/etchings/:etching/activity/:address', async (req, res) => {
    const etching = etchingOf(req.params.etching);
    const address = parseAddressParam(req.params.address);
    const p = page(req.query);
    const result = await q.runeAddressActivity(db, etching, address, p);
    if (!result) throw unknownRune(req.params.etching);
    list(res, p, result.total, result.rows.map(toSimpleActivity));
  });

  router.get('/runes/v1/etchings/:etching/holders', async (req, res) => {
    const etching = etchingOf(req.params.etching);
    const p = page(req.query);
    const result = await q.runeHolders(db, etching, p);
    if (!result) throw unknownRune(req.params.etching);
    list(
      res,
      p,
      result.total,
      result.rows.map((row) => toHolder(row, result.rune.divisibility)),
    );
  });

  router.get('/runes/v1/etchings/:etching/holders/:address', async (req, res) => {
    const etching = etchingOf(req.params.etching);
    const address = parseAddressParam(req.params.address);
    const { rune, holder } = await q.runeHolder(db, etching, address);
    if (!rune) throw unknownRune(req.params.etching);
    if (!holder) throw new NotFoundError(`address: ${address} holds no ${req.params.etching}`);
    send(res, toHolder(holder, rune.divisibility));
  });

  router.get('/runes/v1/addresses/:address/balances', async (req, res) => {
    const address = parseAddressParam(req.params.address);
    const p = page(req.query);
    const result = await q.addressBalances(db, address, p);
    list(res, p, result.total, result.rows.map(toBalance));
  });

  router.get('/runes/v1/addresses/:address/activity', async (req, res) => {
    const address = parseAddressParam(req.params.address);
    const p = page(req.query);
    const result = await q.addressActivity(db, address, p);
    list(res, p, result.total, result.rows.map(toActivity));
  });

  router.get('/runes/v1/transactions/:tx_id/activity', async (req, res) => {
    const txId = parseTxId(req.params.tx_id);
    const p = page(req.query);
    const result = await q.transactionActivity(db, txId, p);
    list(res, p, result.total, result.rows.map(toActivity));
  });

  return router;
}
