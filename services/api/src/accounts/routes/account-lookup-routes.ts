import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import { chainTipETag } from '../../http-cache';
import { echo, MAX_BLOCK_HEIGHT, parsePrincipal, queryBoolean, queryInt, queryString } from '../../params';
import type { GetRoute } from '../../plain-routes';
import { getNonceAtBlock, getPendingNoncesBetween, NoncesLoader } from '../datastore/nonces';
import { StxBalanceLoader } from '../datastore/stx-balance';
import { nonceGap, toAddressNoncesResponse, type AddressNoncesResponse } from '../mappers/nonces';
import { toPrincipalStxBalanceResponse } from '../mappers/principal-stx-balance';
import { toAddressStxBalanceResponse, toStxBalanceResponse } from '../mappers/stx-balance';
import { parseUntilBlock } from './account-params';
import { DEPRECATED_HEADERS } from '../../deprecated';

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

  return [
    {
      path: '/extended/v1/address/:principal/stx',
      async handle(params, query) {
        const principal = parsePrincipal(params.principal!);
        const height = await parseUntilBlock(db, query);
        const { tip, balance, pending } = await balances.load(principal, height);
        if (!balance) throw new NotFoundError('no current block');
        const body = JSON.stringify(toAddressStxBalanceResponse(balance, height === null ? pending : null));
        // At the tip the answer has the mempool in it: it changes without the tip moving.
        return { body, headers: DEPRECATED_HEADERS, etag: height === null ? undefined : chainTipETag(tip) };
      },
    },
    {
      path: '/extended/v2/addresses/:principal/balances/stx',
      async handle(params, query) {
        const principal = parsePrincipal(params.principal!);
        const includeMempool = queryBoolean(query, 'include_mempool');
        const { tip, balance, pending } = await balances.load(principal, null);
        if (!balance) throw new NotFoundError('no current block');
        const body = JSON.stringify(toStxBalanceResponse(balance, includeMempool ? pending : null));
        return { body, headers: DEPRECATED_HEADERS, etag: includeMempool ? undefined : chainTipETag(tip) };
      },
    },
    {
      // The v3 successor (not deprecated): available and locked apart, the mempool part only when something is pending.
      path: '/extended/v3/principals/:principal/balances/stx',
      async handle(params) {
        const principal = parsePrincipal(params.principal!);
        const { balance, pending } = await balances.load(principal, null);
        if (!balance) throw new NotFoundError('no current block');
        return JSON.stringify(toPrincipalStxBalanceResponse(balance, pending));
      },
    },
    {
      path: '/extended/v1/address/:principal/nonces',
      async handle(params, query) {
        const principal = parsePrincipal(params.principal!);
        const rawHeight = queryString(query, 'block_height');
        const rawHash = queryString(query, 'block_hash');
        if (rawHeight !== undefined && rawHash !== undefined) {
          throw new InputError(
            'query parameter block_height: Multiple block query parameters specified (give block_height or block_hash)',
          );
        }
        if (rawHeight === undefined && rawHash === undefined) {
          return { body: JSON.stringify(await currentNonces(principal)), headers: DEPRECATED_HEADERS };
        }
        let block: { height: number } | { hash: string };
        if (rawHeight !== undefined) {
          block = { height: queryInt(query, 'block_height', { default: 1, min: 1, max: MAX_BLOCK_HEIGHT }) };
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
        const body = JSON.stringify({
          last_executed_tx_nonce: executed,
          possible_next_nonce: executed === null ? 0 : executed + 1,
          last_mempool_tx_nonce: null,
          detected_missing_nonces: [],
          detected_mempool_nonces: [],
        });
        return { body, headers: DEPRECATED_HEADERS };
      },
    },
    {
      path: '/extended/v3/principals/:principal/nonces',
      async handle(params) {
        const principal = parsePrincipal(params.principal!);
        if (principal.includes('.')) {
          throw new InputError(`principal: ${echo(principal)} is a contract; only standard principals (addresses) have nonces`);
        }
        const v1 = await currentNonces(principal);
        return JSON.stringify({
          next_nonce: v1.possible_next_nonce,
          last_confirmed_nonce: v1.last_executed_tx_nonce,
          mempool: {
            last_nonce: v1.last_mempool_tx_nonce,
            pending_nonces: v1.detected_mempool_nonces,
            missing_nonces: v1.detected_missing_nonces,
          },
        });
      },
    },
  ];
}
