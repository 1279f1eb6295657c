import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError } from '@bda/common';
import { isValidPrincipal } from '../../codec';
import { echo, queryBoolean } from '../../params';
// The search answers with the chain family's transactions and blocks and the accounts family's STX balance, read and
// shaped by those families (see the report on ADR 0023).
import { getTxById } from '../../chain/datastore/txs';
import { getV1Block } from '../../chain/datastore/v1-blocks';
import { toMempoolTransactionResponse, toTransactionResponse } from '../../chain/mappers/tx';
import { toV1BlockResponse } from '../../chain/mappers/v1-block';
import { getStxBalance } from '../../accounts/datastore/stx-balance';
import { toAddressStxBalanceResponse } from '../../accounts/mappers/stx-balance';
import { getContractDeploy, isAddressKnown } from '../datastore/search';
import {
  toAddressSearchResult,
  toBlockSearchResult,
  toMempoolTxSearchResult,
  toSearchNotFound,
  toTxSearchResult,
  type SearchFoundResponse,
  type SearchNotFoundResponse,
} from '../mappers/search';

/** What a term may look like (the documented pattern of `id`): a 32-byte hash, or something shaped like a principal. */
const TERM = /^((0x)?[0-9a-fA-F]{64}|[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}(\.[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39})?)$/;

/** A 32-byte hash as the reference recognises one: 64 hex digits, or 66 with a `0x` prefix. */
function hashOf(term: string): string | null {
  const m = /^(?:0x)?([0-9a-fA-F]{64})$/.exec(term);
  if (!m || (term.length === 66 && !term.startsWith('0x'))) return null;
  return `0x${m[1]!.toLowerCase()}`;
}

/** A transaction a canonical block mines, or a pending one; null when neither. */
async function searchTx(db: Knex, id: string, withMetadata: boolean): Promise<SearchFoundResponse | null> {
  const found = await getTxById(db, id, { limit: 0, offset: 0 });
  if (!found) return null;
  if (found.kind === 'mined') {
    return toTxSearchResult(found.tx, withMetadata ? toTransactionResponse(found.tx, [], found.abis) : undefined);
  }
  const pending = found.mempoolTx;
  if (pending.status !== 'pending' && pending.status !== 'mined') return null;
  return toMempoolTxSearchResult(
    pending.tx_id,
    pending.type_id,
    withMetadata ? toMempoolTransactionResponse(pending, found.abis) : undefined,
  );
}

async function search(db: Knex, term: string, withMetadata: boolean): Promise<SearchFoundResponse | SearchNotFoundResponse> {
  const hash = hashOf(term);
  if (hash !== null) {
    const tx = await searchTx(db, hash, withMetadata);
    if (tx) return tx;
    const { block } = await getV1Block(db, { kind: 'hash', hash });
    if (block) return toBlockSearchResult(block, withMetadata ? toV1BlockResponse(block) : undefined);
    return toSearchNotFound('unknown_hash', `No block or transaction found with hash "${hash}"`);
  }
  if (isValidPrincipal(term)) {
    if (term.includes('.')) {
      const deploy = await getContractDeploy(db, term);
      const txId = deploy.mempool_tx_id ?? deploy.tx_id;
      if (txId === null) return toSearchNotFound('contract_address', `No principal found with address "${term}"`);
      const txData =
        deploy.mempool_tx_id !== null
          ? { tx_type: deploy.mempool_type_id, tx_id: deploy.mempool_tx_id }
          : {
              canonical: deploy.canonical,
              block_hash: deploy.block_hash,
              burn_block_time: Number(deploy.burn_block_time),
              block_height: deploy.block_height,
              tx_type: deploy.type_id,
              tx_id: deploy.tx_id,
            };
      let metadata: unknown;
      if (withMetadata) {
        const found = await getTxById(db, txId, { limit: 0, offset: 0 });
        if (found?.kind === 'mined') metadata = toTransactionResponse(found.tx, [], found.abis);
        else if (found) metadata = toMempoolTransactionResponse(found.mempoolTx, found.abis);
      }
      return toAddressSearchResult(term, 'contract_address', { tx_data: txData, ...(metadata ? { metadata } : {}) });
    }
    if (!(await isAddressKnown(db, term))) {
      return toSearchNotFound('standard_address', `No principal found with address "${term}"`);
    }
    if (!withMetadata) return toAddressSearchResult(term, 'standard_address');
    const { balance } = await getStxBalance(db, term, null);
    if (!balance) return toAddressSearchResult(term, 'standard_address');
    // The v1 STX balance without the mempool fields, as the reference's search shows it.
    return toAddressSearchResult(term, 'standard_address', { metadata: toAddressStxBalanceResponse(balance, null) });
  }
  return toSearchNotFound(
    'invalid_term',
    `The term "${term}" is not a valid block hash, transaction ID, contract principal, or account address principal`,
  );
}

/**
 * `/extended/v1/search/{id}`: a block hash, a transaction id (mined or pending), a contract or a standard address, with
 * the entity itself under `metadata` when `include_metadata=true`. Found: 200 `{found: true, result}`; not found (an
 * unknown hash or principal, or a principal-shaped term with a bad checksum): 404 `{found: false, result:
 * {entity_type}, error}` as the reference answers, with `message` too. A term of no such shape is a 400 naming `id`.
 * Only canonical blocks and transactions are found (ADR 0016).
 */
export function searchRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();
  router.get('/extended/v1/search/:id', async (req, res) => {
    const withMetadata = queryBoolean(req.query, 'include_metadata');
    const term = req.params.id.trim();
    if (!TERM.test(term)) {
      throw new InputError(
        `id: must be a block hash or transaction id (64 hex digits, optionally 0x-prefixed), a Stacks address or a contract principal, got ${echo(term)}`,
      );
    }
    const answer = await search(db, term, withMetadata);
    res.status(answer.found ? 200 : 404).json(answer);
  });
  return router.routes;
}
