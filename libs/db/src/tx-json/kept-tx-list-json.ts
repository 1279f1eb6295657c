import type { Knex } from 'knex';
import { calledContractSql, FIRST_CALL_ABI_JOIN_SQL } from './contract-abi';
import { minedTxListJson, type ContractAbis, type DbTxJsonRow } from './mined-tx-json';

/**
 * `tx_list_json` (migration 095, ADR 0035): the list form of each mined transaction as JSON text, rendered by the one
 * mapper (`minedTxListJson`) from the rows as the api reads them — the same columns, the including block and its
 * parent joined by primary key, the called contract's ABI from its first canonical deploy — so that the kept text is
 * what the api would render for the row while it is canonical. Written by the indexer for each block it stores, again
 * for the blocks a reorg makes canonical and for the children of a block that arrives after them, and by the
 * migration for the rows already indexed.
 */

/** The `txs` columns of a rendered row, as the api's `DbTxRow` selects them. */
export const TX_JSON_COLUMNS = [
  'tx_id',
  'index_block_hash',
  'block_hash',
  'block_height',
  'burn_block_time',
  'block_time',
  'burn_block_height',
  'parent_index_block_hash',
  'tx_index',
  'type_id',
  'status',
  'raw_result',
  'vm_error',
  'sender_address',
  'sponsor_address',
  'sponsored',
  'nonce',
  'sponsor_nonce',
  'fee_rate',
  'anchor_mode',
  'post_condition_mode',
  'post_conditions',
  'payload',
  'contract_id',
  'execution_cost_read_count',
  'execution_cost_read_length',
  'execution_cost_runtime',
  'execution_cost_write_count',
  'execution_cost_write_length',
  'microblock_hash',
  'microblock_sequence',
  'microblock_parent_hash',
  'event_count',
  'canonical',
] as const;

/**
 * The rows chosen by `where` (over `txs t`) with their parents' facts, and on the first row calling each contract
 * that contract's ABI from its first canonical deploy (`txs_contract_deploy`), as the api's statements join it.
 */
function renderRowsSql(where: string): string {
  return `SELECT r.*, abi.contract_id AS abi_contract_id, abi.contract_abi
    FROM (
      SELECT ${TX_JSON_COLUMNS.map((c) => `t.${c}`).join(', ')}, b.parent_block_hash,
             p.burn_block_time AS parent_burn_block_time,
             CASE WHEN row_number() OVER (PARTITION BY c.called ORDER BY t.tx_id, t.index_block_hash) = 1 THEN c.called END AS first_call
      FROM txs t
      LEFT JOIN blocks b ON b.index_block_hash = t.index_block_hash
      LEFT JOIN blocks p ON p.index_block_hash = t.parent_index_block_hash
      ${calledContractSql('t')}
      WHERE ${where}
    ) r
    ${FIRST_CALL_ABI_JOIN_SQL}`;
}

const OF_BLOCKS = renderRowsSql('t.index_block_hash = ANY(?::text[])');
/** Canonical calls to the contracts `?` in blocks other than `?`: their ABI may have arrived after them. */
const CALLERS = renderRowsSql(
  "t.contract_id = ANY(?::text[]) AND t.type_id = 'contract_call' AND t.canonical AND NOT t.index_block_hash = ANY(?::text[])",
);

const UPSERT = `INSERT INTO tx_list_json (tx_id, index_block_hash, json)
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[])
  ON CONFLICT (tx_id, index_block_hash) DO UPDATE SET json = excluded.json`;

type RenderRow = DbTxJsonRow & { abi_contract_id: string | null; contract_abi: unknown };

async function renderAndKeep(knex: Knex, rows: RenderRow[]): Promise<void> {
  if (rows.length === 0) return;
  const abis = new Map<string, unknown>();
  for (const r of rows) if (r.abi_contract_id !== null) abis.set(r.abi_contract_id, r.contract_abi);
  const known: ContractAbis = abis;
  await knex.raw(UPSERT, [
    rows.map((r) => r.tx_id),
    rows.map((r) => r.index_block_hash),
    rows.map((r) => minedTxListJson(r, known)),
  ]);
}

/**
 * Renders and keeps the list texts of every transaction of the blocks `indexBlockHashes` (canonical or not), then
 * renders again the canonical calls elsewhere to the contracts these blocks deploy canonically (usually none: a
 * contract is called after it is deployed, but a child block can arrive before its parent).
 */
export async function keepTxListJson(knex: Knex, indexBlockHashes: string[]): Promise<void> {
  if (indexBlockHashes.length === 0) return;
  const { rows } = (await knex.raw(OF_BLOCKS, [indexBlockHashes])) as { rows: RenderRow[] };
  await renderAndKeep(knex, rows);
  const deployed = [
    ...new Set(rows.filter((r) => r.type_id === 'smart_contract' && r.canonical && r.contract_id).map((r) => r.contract_id!)),
  ];
  if (deployed.length === 0) return;
  const callers = (await knex.raw(CALLERS, [deployed, indexBlockHashes])) as { rows: RenderRow[] };
  await renderAndKeep(knex, callers.rows);
}
