import type { DbV1BlockRow } from '../../chain/datastore/v1-blocks';
import type { DbTxRow } from '../../chain/datastore/txs';
import { int } from '../../mappers/row-values';

/** What a search found (or could not), as the reference API names it in `entity_type`. */
type SearchEntityType =
  'tx_id' | 'mempool_tx_id' | 'block_hash' | 'standard_address' | 'contract_address' | 'unknown_hash' | 'invalid_term';

export interface SearchFoundResponse {
  found: true;
  result: Record<string, unknown> & { entity_id: string; entity_type: SearchEntityType };
}

export interface SearchNotFoundResponse {
  found: false;
  result: { entity_type: SearchEntityType };
  /** The reference's text. */
  error: string;
  /** The same text, as every error body here has it. */
  message: string;
}

export function toSearchNotFound(entityType: SearchEntityType, text: string): SearchNotFoundResponse {
  return { found: false, result: { entity_type: entityType }, error: text, message: text };
}

export function toBlockSearchResult(block: DbV1BlockRow, metadata?: unknown): SearchFoundResponse {
  return {
    found: true,
    result: {
      entity_id: block.block_hash,
      entity_type: 'block_hash',
      block_data: {
        canonical: block.canonical,
        hash: block.block_hash,
        parent_block_hash: block.parent_block_hash,
        burn_block_time: int(block.burn_block_time),
        height: block.block_height,
      },
      ...(metadata === undefined ? {} : { metadata }),
    },
  };
}

export function toTxSearchResult(tx: DbTxRow, metadata?: unknown): SearchFoundResponse {
  return {
    found: true,
    result: {
      entity_id: tx.tx_id,
      entity_type: 'tx_id',
      tx_data: {
        canonical: tx.canonical,
        block_hash: tx.block_hash,
        burn_block_time: int(tx.burn_block_time),
        block_height: tx.block_height,
        tx_type: tx.type_id,
      },
      ...(metadata === undefined ? {} : { metadata }),
    },
  };
}

export function toMempoolTxSearchResult(txId: string, typeId: string, metadata?: unknown): SearchFoundResponse {
  return {
    found: true,
    result: {
      entity_id: txId,
      entity_type: 'mempool_tx_id',
      tx_data: { tx_type: typeId },
      ...(metadata === undefined ? {} : { metadata }),
    },
  };
}

export function toAddressSearchResult(
  address: string,
  entityType: 'standard_address' | 'contract_address',
  extra: Record<string, unknown> = {},
): SearchFoundResponse {
  return { found: true, result: { entity_id: address, entity_type: entityType, ...extra } };
}
