import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import { echo, MAX_BLOCK_HEIGHT, parsePrincipal, queryInt, queryString } from '../../params';
import { getAddressNonces, getNonceAtBlock, getPendingNoncesBetween } from '../datastore/nonces';
import { nonceGap, toAddressNoncesResponse } from '../mappers/nonces';
import { markDeprecated } from './account-params';

/**
 * `/extended/v1/address/{principal}/nonces`: the last executed and pending nonces, the likely next one and the gaps
 * that keep pending transactions stuck; with `block_height` or `block_hash`, the last executed nonce up to that block.
 */
export function noncesRoutes(db: Knex): Router {
  const router = express.Router();
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
    if (rawHeight !== undefined || rawHash !== undefined) {
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
      return;
    }
    const nonces = await getAddressNonces(db, principal);
    const gap = nonceGap(nonces);
    const pending = gap ? await getPendingNoncesBetween(db, principal, gap.low, gap.high) : [];
    res.json(toAddressNoncesResponse(nonces, gap, pending));
  });
  return router;
}
