import type { Knex } from 'knex';
import type { DbMempoolTx } from '../db-types';
import { calledContractSql, FIRST_CALL_ABI_JOIN_SQL } from './contract-abi';
import { toBaseTxJson, toTxMetadataJson, type ContractAbis } from './mined-tx-json';
import { isoToUnix, unixToIso } from './row-values';
import { sender, sponsorOf, typePart, type Sender, type TypePart } from './v3-transaction-summary';

/**
 * The one rendering of a mempool transaction in the reference API's `MempoolTransaction` shape, used by the api for
 * every answer (a pending transaction by id, the pages) and by the indexer for the list form it keeps
 * (`mempool_tx_json`, migration 105, ADR 0041): both must give the same text byte for byte.
 */

/** A mempool row as rendered: every column but the raw bytes. */
export type DbMempoolTxJsonRow = Omit<DbMempoolTx, 'raw_tx'>;

/** The mempool statuses the reference API names. */
export type MempoolTxStatusJson =
  | 'pending'
  | 'dropped_replace_by_fee'
  | 'dropped_replace_across_fork'
  | 'dropped_too_expensive'
  | 'dropped_stale_garbage_collect'
  | 'dropped_problematic';

const DROPPED_STATUSES = new Set<string>([
  'dropped_replace_by_fee',
  'dropped_replace_across_fork',
  'dropped_too_expensive',
  'dropped_stale_garbage_collect',
  'dropped_problematic',
]);

/**
 * The mempool status as clients see it. `mined` shows as `pending`: a row only reads `mined` here when the block
 * that mined it was applied between the api's two lookups (or is not canonical any more), and the reference shows
 * such transactions as pending too. A drop for a reason the reference has no name for (stored as `dropped_unknown`:
 * a node reason newer than this api, or none) shows as `dropped_stale_garbage_collect`, the reference's own catch-all
 * for drops outside the node's named reasons, so that clients with a closed set of statuses can read it.
 */
export function toMempoolStatusJson(status: string): MempoolTxStatusJson {
  if (status === 'pending' || status === 'mined') return 'pending';
  if (DROPPED_STATUSES.has(status)) return status as MempoolTxStatusJson;
  return 'dropped_stale_garbage_collect';
}

/** A mempool transaction in the reference API's shape; `abis` names a contract call's arguments. */
export function toMempoolTxJson(row: DbMempoolTxJsonRow, abis?: ContractAbis) {
  const receiptTime = isoToUnix(row.receipt_time);
  return {
    ...toBaseTxJson(row, row.sponsor_address !== null),
    tx_status: toMempoolStatusJson(row.status),
    replaced_by_tx_id: row.replaced_by_tx_id ?? null,
    receipt_time: receiptTime,
    receipt_time_iso: unixToIso(receiptTime),
    ...toTxMetadataJson(row.type_id, row.payload, abis),
  };
}

/**
 * The list form of a pending transaction as JSON text, as `mempool_tx_json` keeps it: what the api's pages answer for
 * the row while it is pending (they list pending rows only, and a row enters `pending` with no replacement: every
 * statement that makes a row pending clears `replaced_by_tx_id`), so the text says `pending` and `null` whatever the
 * row's status when it is written.
 */
export function mempoolTxListJson(row: DbMempoolTxJsonRow, abis?: ContractAbis): string {
  return JSON.stringify(toMempoolTxJson({ ...row, status: 'pending', replaced_by_tx_id: null }, abis));
}

/**
 * The one rendering of a mempool row in the reference API's v3 shapes: the api's (the v3 by-id answer's base fields,
 * the mapper the v3 mempool pages are held to) and the indexer's for the text it keeps beside the list text
 * (`mempool_tx_json.v3_json`, migration 110, ADR 0045). It reads the row's own columns only (no ABI, nothing of the
 * tip), none of which changes while the row is pending but `status`, which the kept text fixes at `pending`.
 */
export interface MempoolSummaryBaseJson {
  tx_id: string;
  sender: Sender;
  sponsor: Sender | null;
  fee_rate: string;
  receipt_time: number;
  receipt_block_height: number;
  status: string;
}

export type MempoolTransactionSummaryJson = MempoolSummaryBaseJson & TypePart;

/** The base fields of a mempool row in the v3 shapes (the summary's and `/extended/v3/transactions/{tx_id}`'s). */
export function toMempoolSummaryBaseJson(row: DbMempoolTxJsonRow): MempoolSummaryBaseJson {
  return {
    tx_id: row.tx_id,
    sender: sender(row.sender_address, row.nonce),
    sponsor: sponsorOf(row.sponsor_address, row.sponsor_nonce, row.sponsor_address !== null),
    fee_rate: row.fee_rate,
    receipt_time: isoToUnix(row.receipt_time),
    receipt_block_height: row.receipt_block_height ?? 0,
    status: toMempoolStatusJson(row.status),
  };
}

/** A mempool row as the v3 mempool lists show it (the reference's `MempoolTransactionSummary`). */
export function toMempoolTransactionSummaryJson(row: DbMempoolTxJsonRow): MempoolTransactionSummaryJson {
  return {
    ...toMempoolSummaryBaseJson(row),
    ...typePart(row.type_id, row.payload, { mempool: true, full: false, include: [] }),
  };
}

/**
 * The v3 list form of a pending transaction as JSON text, as `mempool_tx_json.v3_json` keeps it: what the v3 pages
 * answer for the row while it is pending (they list pending rows only), so it says `pending` whatever the row's
 * status when it is written.
 */
export function mempoolTxSummaryListJson(row: DbMempoolTxJsonRow): string {
  return JSON.stringify(toMempoolTransactionSummaryJson({ ...row, status: 'pending' }));
}

/** The `mempool_txs` columns of a rendered row, as the api's mempool statements select them. */
export const MEMPOOL_TX_JSON_COLUMNS = [
  'tx_id',
  'type_id',
  'sender_address',
  'sponsor_address',
  'nonce',
  'sponsor_nonce',
  'fee_rate',
  'payload',
  'post_conditions',
  'post_condition_mode',
  'anchor_mode',
  'contract_id',
  'status',
  'replaced_by_tx_id',
  'receipt_time',
  'receipt_block_height',
] as const;

/**
 * The pending rows chosen by `where` (over `mempool_txs m`), and on the first row calling each contract that
 * contract's ABI from its first canonical deploy, as the api's statements join it (`deployAbi`).
 */
function renderRowsSql(where: string): string {
  return `SELECT r.*, abi.contract_id AS abi_contract_id, abi.contract_abi
    FROM (
      SELECT ${MEMPOOL_TX_JSON_COLUMNS.map((c) => `m.${c}`).join(', ')},
             CASE WHEN row_number() OVER (PARTITION BY c.called ORDER BY m.tx_id) = 1 THEN c.called END AS first_call
      FROM mempool_txs m
      ${calledContractSql('m')}
      WHERE m.status = 'pending' AND (${where})
    ) r
    ${FIRST_CALL_ABI_JOIN_SQL}`;
}

/** The pending rows `?` (tx ids). */
const OF_IDS = renderRowsSql('m.tx_id = ANY(?::text[])');
/** The pending calls to the contracts the blocks `?` deploy (`mempool_pending_contract`). */
const CALLS_TO_DEPLOYS_OF = renderRowsSql(
  `m.type_id = 'contract_call' AND m.contract_id IN (
     SELECT t.contract_id FROM txs t
     WHERE t.index_block_hash = ANY(?::text[]) AND t.type_id = 'smart_contract' AND t.contract_id IS NOT NULL)`,
);
/** The pending rows the blocks `?` include (back in the mempool after a reorg orphaned them). */
const MINED_IN = renderRowsSql('m.tx_id IN (SELECT t.tx_id FROM txs t WHERE t.index_block_hash = ANY(?::text[]))');

/** Both texts of each row (ADR 0041, 0045); a row whose texts are unchanged is not written. */
const UPSERT = `INSERT INTO mempool_tx_json (tx_id, json, v3_json)
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[])
  ON CONFLICT (tx_id) DO UPDATE SET json = excluded.json, v3_json = excluded.v3_json
  WHERE (mempool_tx_json.json, mempool_tx_json.v3_json) IS DISTINCT FROM (excluded.json, excluded.v3_json)`;

/** The v1 text only: migration 105's backfill, which runs before migration 110 adds `v3_json`. */
const UPSERT_V1 = `INSERT INTO mempool_tx_json (tx_id, json)
  SELECT * FROM unnest(?::text[], ?::text[])
  ON CONFLICT (tx_id) DO UPDATE SET json = excluded.json WHERE mempool_tx_json.json IS DISTINCT FROM excluded.json`;

type RenderRow = DbMempoolTxJsonRow & { abi_contract_id: string | null; contract_abi: unknown };

async function renderAndKeep(knex: Knex, rows: RenderRow[], v1Only = false): Promise<number> {
  if (rows.length === 0) return 0;
  const abis = new Map<string, unknown>();
  for (const r of rows) if (r.abi_contract_id !== null) abis.set(r.abi_contract_id, r.contract_abi);
  const ids = rows.map((r) => r.tx_id);
  const texts = rows.map((r) => mempoolTxListJson(r, abis));
  if (v1Only) await knex.raw(UPSERT_V1, [ids, texts]);
  else await knex.raw(UPSERT, [ids, texts, rows.map((r) => mempoolTxSummaryListJson(r))]);
  return rows.length;
}

/**
 * Renders and keeps the list texts (v1 and v3, ADR 0041 and 0045; `v1Only`: the v1 one, for migration 105) of the
 * transactions `txIds` that are pending (the others are left as they are: a page lists pending rows only, and a row
 * that becomes pending again is rendered again then). Called by the indexer after every statement that makes rows
 * pending: an announcement (new, or dropped and back), in its transaction. Returns how many it rendered.
 */
export async function keepMempoolTxJson(knex: Knex, txIds: readonly string[], opts: { v1Only?: boolean } = {}): Promise<number> {
  if (txIds.length === 0) return 0;
  const { rows } = (await knex.raw(OF_IDS, [[...txIds]])) as { rows: RenderRow[] };
  return renderAndKeep(knex, rows, opts.v1Only);
}

/**
 * After the blocks `indexBlockHashes` were written, or joined or left the canonical chain: renders again the pending
 * calls to the contracts they deploy, whose ABI (the first canonical deploy's) may have come or gone with them
 * (usually none: a contract is called after its deploy is mined). With `restored`, also the pending transactions
 * those blocks include: the ones a reorg sent back to the mempool (`restoreOrphanedToMempool`).
 */
export async function keepMempoolTxJsonOfBlocks(
  knex: Knex,
  indexBlockHashes: readonly string[],
  opts: { restored?: boolean } = {},
): Promise<number> {
  if (indexBlockHashes.length === 0) return 0;
  const calls = (await knex.raw(CALLS_TO_DEPLOYS_OF, [[...indexBlockHashes]])) as { rows: RenderRow[] };
  let n = await renderAndKeep(knex, calls.rows);
  if (opts.restored) {
    const restored = (await knex.raw(MINED_IN, [[...indexBlockHashes]])) as { rows: RenderRow[] };
    n += await renderAndKeep(knex, restored.rows);
  }
  return n;
}
