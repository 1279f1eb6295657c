import type { Knex } from 'knex';
import { TX_JSON_COLUMNS, type DbChainTip, type DbEvent, type DbTx } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { ABI_SELECT, abisOf, calledContract, deployAbi, type ContractAbis } from './contract-abis';
import { mempoolSelect, prefixedMempoolTxOf, type DbMempoolTxRow } from './mempool';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';

/**
 * A mined transaction as the api reads it: the `txs` columns it serves (not the raw bytes, ABI or burnchain op) plus
 * two facts of the including block's parent, joined by primary key.
 */
export type DbTxRow = Omit<DbTx, 'raw_tx' | 'contract_abi' | 'burnchain_op'> & {
  /** `block_hash` of the including block's parent (from `blocks`); null only if that row is missing. */
  parent_block_hash: string | null;
  /** Burn time of the parent block, Unix seconds; null for the first block or a missing parent row. */
  parent_burn_block_time: string | null;
};

/** The `txs` columns of a row, the same the indexer reads to render its kept list text (ADR 0035). */
const TX_COLUMNS: readonly string[] = TX_JSON_COLUMNS;

const TX_ROW_COLUMNS = [...TX_COLUMNS, 'parent_block_hash', 'parent_burn_block_time'];

/** The columns of a `DbTxRow`, for a statement that reads `txs` as `alias` and joins `txParents(alias)` to it. */
export function txSelect(alias: string): string {
  return `${TX_COLUMNS.map((c) => `${alias}.${c}`).join(', ')}, b.parent_block_hash, p.burn_block_time AS parent_burn_block_time`;
}

/** The columns of a `DbTxRow` from a subquery `alias` that selected `txSelect`. */
export function txRowSelect(alias: string): string {
  return TX_ROW_COLUMNS.map((c) => `${alias}.${c}`).join(', ');
}

/** The including block (`b`) and its parent (`p`) of the transaction `alias`, by primary key. */
export function txParents(alias: string): string {
  return `LEFT JOIN blocks b ON b.index_block_hash = ${alias}.index_block_hash
   LEFT JOIN blocks p ON p.index_block_hash = ${alias}.parent_index_block_hash`;
}

/** The rows of a statement that carry a mined transaction (`txSelect`), as `DbTxRow`s (see `rowsCarrying`). */
export function txRowsOf(rows: ReadonlyArray<object>): DbTxRow[] {
  return rowsCarrying<DbTxRow>(rows, 'tx_id');
}

/**
 * The events of a page as one JSON array, built as node-postgres would have parsed their rows: numeric and int8
 * columns as text (node-postgres gives them as strings, see `createDb`); int4 as numbers, booleans, text and nulls
 * come out of JSON as they would out of a row. The columns are the table's, in its order. One array, not one row per
 * event: the transaction's columns would otherwise come again with every event.
 */
const EVENT_JSON_COLUMNS = [
  'e.index_block_hash',
  'e.event_index',
  'e.tx_id',
  'e.tx_index',
  'e.block_height',
  'e.type',
  'e.committed',
  'e.asset_identifier',
  'e.sender',
  'e.recipient',
  'e.amount::text AS amount',
  'e.memo',
  'e.value_hex',
  'e.value_repr',
  'e.contract_identifier',
  'e.topic',
  'e.locked_amount::text AS locked_amount',
  'e.unlock_height::text AS unlock_height',
  'e.locked_address',
  'e.canonical',
].join(', ');

/**
 * `/extended/v1/tx/{tx_id}` in one statement: the tip; the canonical mined row of `$1` (index `txs_canonical_tx`)
 * with a page of its canonical events (`$2` limit, `$3` offset; index `events_tx`); or, only when no canonical block
 * mines it, the mempool's row (primary key); and the ABI of the contract either calls.
 */
const TX_BY_ID = statement(
  `SELECT ${TIP_SELECT}, ${txSelect('t')}, ev.events, ${mempoolSelect('m', 'mempool_')}, ${ABI_SELECT}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${TX_COLUMNS.map((c) => `x.${c}`).join(', ')} FROM txs x WHERE x.tx_id = $1 AND x.canonical LIMIT 1
   ) t ON true
   ${txParents('t')}
   LEFT JOIN LATERAL (
     SELECT json_agg(page ORDER BY page.event_index) AS events
     FROM (
       SELECT ${EVENT_JSON_COLUMNS} FROM events e
       WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash AND e.canonical
       ORDER BY e.event_index LIMIT $2 OFFSET $3
     ) page
   ) ev ON true
   LEFT JOIN mempool_txs m ON m.tx_id = $1 AND t.tx_id IS NULL
   ${deployAbi(`coalesce(${calledContract('t')}, ${calledContract('m')})`)}`,
);

export type TxById =
  | { kind: 'mined'; tip: DbChainTip | null; tx: DbTxRow; events: DbEvent[]; abis: ContractAbis }
  | { kind: 'mempool'; mempoolTx: DbMempoolTxRow; abis: ContractAbis };

/** A transaction by id, as a canonical block mines it or else as the mempool knows it (any status); null if neither. */
export async function getTxById(db: Knex, txId: string, eventPage: { limit: number; offset: number }): Promise<TxById | null> {
  type Row = TipColumns & {
    tx_id: string | null;
    events: DbEvent[] | null;
    abi_contract_id: string | null;
    contract_abi: unknown;
  };
  const [row] = await query<Row>(db, TX_BY_ID, [txId, eventPage.limit, eventPage.offset]);
  const abis = abisOf([row!]);
  const [tx] = txRowsOf([row!]);
  if (tx) return { kind: 'mined', tip: tipOf(row!), tx, events: row!.events ?? [], abis };
  const mempoolTx = prefixedMempoolTxOf(row!, 'mempool_');
  return mempoolTx ? { kind: 'mempool', mempoolTx, abis } : null;
}
