import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { echo, MAX_BLOCK_HEIGHT, parsePrincipal, queryBoolean, queryInt, queryString } from '../../params';
import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { getNonceAtBlock, getPendingNoncesBetween, NoncesLoader } from '../datastore/nonces';
import { StxBalanceLoader } from '../datastore/stx-balance';
import { nonceGap, toAddressNoncesResponse, type AddressNoncesResponse } from '../mappers/nonces';
import { toPrincipalStxBalanceResponse } from '../mappers/principal-stx-balance';
import { toAddressStxBalanceResponse, toStxBalanceResponse } from '../mappers/stx-balance';
import { parseUntilBlock } from './account-params';
import { markDeprecated } from '../../deprecated';

/**
 * The account reads a wallet makes before anything else, as routes the api serves on plain node:http
 * (`plain-routes.ts`: express's routing cost more CPU than their statements) and `accountsRouter` mounts on express:
 * - `/extended/v1/address/{principal}/stx` (at the tip with the mempool-aware fields, or at `until_block` without
 *   them), `/extended/v2/addresses/{principal}/balances/stx` (tip; mempool fields with `include_mempool=true`) and
 *   `/extended/v3/principals/{principal}/balances/stx`;
 * - `/extended/v1/address/{principal}/nonces` (the last executed and pending nonces, the likely next one and the gaps
 *   that keep pending transactions stuck; with `block_height` or `block_hash`, the last executed nonce up to that
 *   block) and `/extended/v3/principals/{principal}/nonces`.
 * Balances and nonces are each one statement, shared by the reads of the same kind that arrive in the same turn of
 * the event loop (`StxBalanceLoader`, `NoncesLoader`). Answers that depend on the chain only (a balance without the
 * mempool) carry the tip as ETag.
 */
export function accountLookupRoutes(db: Knex): GetRoute[] {
  const balances = new StxBalanceLoader(db);
  const nonces = new NoncesLoader(db);

  /** The nonces of an address now (executed and pending), as the v1 answer; v3 renames its fields. */
  async function currentNonces(principal: string): Promise<AddressNoncesResponse> {
    const read = await nonces.load(principal);
    const gap = nonceGap(read);
    const pending = gap ? await getPendingNoncesBetween(db, principal, gap.low, gap.high) : [];
    return toAddressNoncesResponse(read, gap, pending);
  }

  const router = new ReadRoutes();

  router.get('/extended/v1/address/:principal/stx', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const height = await parseUntilBlock(db, req.query);
    const { tip, balance, pending } = await balances.load(principal, height);
    if (!balance) throw new NotFoundError('no current block');
    markDeprecated(res);
    // At the tip the answer has the mempool in it: it changes without the tip moving.
    if (height !== null && respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toAddressStxBalanceResponse(balance, height === null ? pending : null));
  });

  router.get('/extended/v2/addresses/:principal/balances/stx', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const includeMempool = queryBoolean(req.query, 'include_mempool');
    const { tip, balance, pending } = await balances.load(principal, null);
    if (!balance) throw new NotFoundError('no current block');
    markDeprecated(res);
    if (!includeMempool && respondNotModifiedIfFresh(req, res, tip)) return;
    res.json(toStxBalanceResponse(balance, includeMempool ? pending : null));
  });

  // The v3 successor (not deprecated): available and locked apart, the mempool part only when something is pending.
  router.get('/extended/v3/principals/:principal/balances/stx', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const { balance, pending } = await balances.load(principal, null);
    if (!balance) throw new NotFoundError('no current block');
    res.json(toPrincipalStxBalanceResponse(balance, pending));
  });

  router.get('/extended/v1/address/:principal/nonces', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const rawHeight = queryString(req.query, 'block_height');
    const rawHash = queryString(req.query, 'block_hash');
    if (rawHeight !== undefined && rawHash !== undefined) {
      throw new InputError(
        'query parameter block_height: Multiple block query parameters specified (give block_height or block_hash)',
      );
    }
    markDeprecated(res);
    if (rawHeight === undefined && rawHash === undefined) {
      res.json(await currentNonces(principal));
      return;
    }
    let block: { height: number } | { hash: string };
    if (rawHeight !== undefined) {
      block = { height: queryInt(req.query, 'block_height', { default: 1, min: 1, max: MAX_BLOCK_HEIGHT }) };
    } else {
      if (!/^0x[0-9a-fA-F]{64}$/.test(rawHash!)) {
        throw new InputError(
          `query parameter block_hash: ${echo(rawHash!)} is not a valid block hash hex string (0x and 64 hex digits)`,
        );
      }
      block = { hash: rawHash!.toLowerCase() };
    }
    const at = await getNonceAtBlock(db, principal, block);
    if (!at.found) throw new NotFoundError(`No block found for ${JSON.stringify(block)}`);
    const executed = at.executed === null ? null : Number(at.executed);
    res.json({
      last_executed_tx_nonce: executed,
      possible_next_nonce: executed === null ? 0 : executed + 1,
      last_mempool_tx_nonce: null,
      detected_missing_nonces: [],
      detected_mempool_nonces: [],
    });
  });

  router.get('/extended/v3/principals/:principal/nonces', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    if (principal.includes('.')) {
      throw new InputError(`principal: ${echo(principal)} is a contract; only standard principals (addresses) have nonces`);
    }
    const v1 = await currentNonces(principal);
    res.json({
      next_nonce: v1.possible_next_nonce,
      last_confirmed_nonce: v1.last_executed_tx_nonce,
      mempool: {
        last_nonce: v1.last_mempool_tx_nonce,
        pending_nonces: v1.detected_mempool_nonces,
        missing_nonces: v1.detected_missing_nonces,
      },
    });
  });

  return router.routes;
}
