import type { Knex } from 'knex';

/**
 * `blocks.v2_json` (issue 24, ADR 0036): each block in the reference API's `NakamotoBlock` shape, kept as the JSON
 * text the api's `/extended/v2/blocks` page splices into its answer, so a page reads one text a block instead of 22
 * columns that node-postgres parses and the api maps and serializes again (a CPU profile of that page under load:
 * row parsing a quarter of the api's CPU, `JSON.stringify` a tenth).
 *
 * A stored generated column: PostgreSQL computes it from the row's own columns whenever the row is written, the
 * indexer's `canonical` flips of a reorg included, so the text can never disagree with the row and there is nothing
 * to undo by hand. The text is byte for byte what `toBlockResponse` then `JSON.stringify` give
 * (`services/api/src/chain/mappers/block.ts`: the same fallbacks of `block_time`, `tenure_height` and `miner_txid`,
 * the same key order, ISO times as `unixToIso` writes them); where JavaScript's numbers or `Date` would write
 * something else — a time from the year 10000 on, a cost beyond 2^53 — the column is null and the api answers that
 * page from the columns as before. `blocks_v2_json_matches` in the tests compares the two on every replayed block.
 *
 * The function is declared immutable (a generated column's expression must be): `to_char`, `to_json` and the text
 * output of integers depend on no setting for these formats (the time is converted at UTC explicitly).
 */

/**
 * The `NakamotoBlock` text of a block row, null where the api must render it itself. One function calling only
 * built-in ones (no helper of ours), so its body resolves under any `search_path` (a restore's is empty).
 * - `unixToIso`: '' for 0 and below, whole seconds of years 1970–9999 as `toISOString` writes them, null after;
 * - an int8 as a JSON number only where JavaScript holds it exactly (|v| < 2^53), null otherwise.
 */
const BLOCK_FN = `CREATE FUNCTION bda_block_v2_json(
    canonical boolean, block_height int, block_hash text, block_time bigint, burn_block_time bigint,
    tenure_height int, signer_bitvec text, index_block_hash text, parent_block_hash text,
    parent_index_block_hash text, burn_block_hash text, burn_block_height int, miner_txid text, tx_count int,
    read_count bigint, read_length bigint, runtime bigint, write_count bigint, write_length bigint)
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '{"canonical":' || canonical::text
    || ',"height":' || block_height::text
    || ',"hash":' || to_json(block_hash)::text
    || ',"block_time":' || ${num('t.effective')}
    || ',"block_time_iso":"' || ${iso('t.effective')} || '"'
    || ',"tenure_height":'
    || coalesce(tenure_height, CASE WHEN coalesce(signer_bitvec, '') <> '' THEN -1 ELSE block_height END)::text
    || ',"index_block_hash":' || to_json(index_block_hash)::text
    || ',"parent_block_hash":' || to_json(parent_block_hash)::text
    || ',"parent_index_block_hash":' || to_json(parent_index_block_hash)::text
    || ',"burn_block_time":' || ${num('burn_block_time')}
    || ',"burn_block_time_iso":"' || ${iso('burn_block_time')} || '"'
    || ',"burn_block_hash":' || to_json(burn_block_hash)::text
    || ',"burn_block_height":' || burn_block_height::text
    || ',"miner_txid":' || to_json(coalesce(miner_txid, ''))::text
    || ',"tx_count":' || tx_count::text
    || ',"execution_cost_read_count":' || ${num('read_count')}
    || ',"execution_cost_read_length":' || ${num('read_length')}
    || ',"execution_cost_runtime":' || ${num('runtime')}
    || ',"execution_cost_write_count":' || ${num('write_count')}
    || ',"execution_cost_write_length":' || ${num('write_length')}
    || '}'
  FROM (SELECT CASE WHEN block_time > 0 THEN block_time ELSE burn_block_time END AS effective) t
$$`;

/** `unixToIso(t)` as SQL text (see `BLOCK_FN`). */
function iso(t: string): string {
  return `(CASE WHEN ${t} <= 0 THEN '' WHEN ${t} < 253402300800
    THEN to_char(to_timestamp(${t}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"') END)`;
}

/** An int8 as JSON number text where JavaScript holds it exactly, else null. */
function num(v: string): string {
  return `(CASE WHEN ${v} BETWEEN -9007199254740991 AND 9007199254740991 THEN ${v}::text END)`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(BLOCK_FN);
  // Rewrites the table once (4,000 blocks: well under a second; a mainnet's few hundred thousand: seconds).
  await knex.raw(
    `ALTER TABLE blocks ADD COLUMN v2_json text COLLATE "C" GENERATED ALWAYS AS (bda_block_v2_json(
       canonical, block_height, block_hash, block_time, burn_block_time, tenure_height, signer_bitvec,
       index_block_hash, parent_block_hash, parent_index_block_hash, burn_block_hash, burn_block_height, miner_txid,
       tx_count, execution_cost_read_count, execution_cost_read_length, execution_cost_runtime,
       execution_cost_write_count, execution_cost_write_length)) STORED`,
  );
  await knex.raw(
    `COMMENT ON COLUMN blocks.v2_json IS 'The block as the reference API v2 NakamotoBlock JSON text (null where the api renders it itself)'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE blocks DROP COLUMN v2_json');
  await knex.raw('DROP FUNCTION bda_block_v2_json');
}
