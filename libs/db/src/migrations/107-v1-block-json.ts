import type { Knex } from 'knex';

/**
 * `blocks.v1_json` (issue 24, ADR 0042): the parts of each block's reference API v1 `Block` text that come from the
 * block row itself, so a page of `/extended/v1/block` is one row that PostgreSQL joins from kept texts instead of 20
 * rows of 30 columns that node-postgres parses and the api maps and serializes again.
 *
 * A stored generated column, as `v2_json` (migration 097, ADR 0036): PostgreSQL computes it whenever the row is
 * written, reorg flips included, so it cannot disagree with the columns. It is a two-element array:
 * - `[1]`: the text from `{"canonical":` up to and including `"txs":` (the fields `toV1BlockResponse` writes before
 *   the transaction ids, in its order: `NakamotoBlock`'s but for `parent_index_block_hash` and `tx_count`);
 * - `[2]`: `,"parent_microblock_hash":…,"parent_microblock_sequence":…` (`''` and -1 when the block confirms no
 *   microblock, the node's zero hash, as `parentMicroblock` in `services/api/src/chain/mappers/v1-block.ts`).
 * The rest of the answer changes with other rows and is joined per request from kept texts or index probes: the ids
 * (`block_tx_ids.tx_ids`, migration 093), the accepted and streamed microblocks and their transaction counts.
 *
 * Null where JavaScript writes otherwise (a cost or time beyond 2^53, a time from the year 10000 on): the api then
 * answers from the columns as before.
 */

/** `unixToIso(t)` as SQL text (as migration 097's: '' for 0 and below, null from the year 10000). */
function iso(t: string): string {
  return `(CASE WHEN ${t} <= 0 THEN '' WHEN ${t} < 253402300800
    THEN to_char(to_timestamp(${t}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"') END)`;
}

/** An int8 as JSON number text where JavaScript holds it exactly, else null. */
function num(v: string): string {
  return `(CASE WHEN ${v} BETWEEN -9007199254740991 AND 9007199254740991 THEN ${v}::text END)`;
}

/** One function calling only built-ins, declared immutable (see migration 097 on why that holds). */
const V1_FN = `CREATE FUNCTION bda_block_v1_json(
    canonical boolean, block_height int, block_hash text, block_time bigint, burn_block_time bigint,
    tenure_height int, signer_bitvec text, index_block_hash text, parent_block_hash text,
    burn_block_hash text, burn_block_height int, miner_txid text,
    read_count bigint, read_length bigint, runtime bigint, write_count bigint, write_length bigint,
    parent_microblock_hash text, parent_microblock_sequence int)
  RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN t.head IS NOT NULL THEN ARRAY[t.head,
    CASE WHEN ltrim(CASE WHEN left(parent_microblock_hash, 2) = '0x' THEN substr(parent_microblock_hash, 3)
                         ELSE parent_microblock_hash END, '0') = ''
      THEN ',"parent_microblock_hash":"","parent_microblock_sequence":-1'
      ELSE ',"parent_microblock_hash":' || to_json(parent_microblock_hash)::text
        || ',"parent_microblock_sequence":' || parent_microblock_sequence::text END] END
  FROM (SELECT '{"canonical":' || canonical::text
    || ',"height":' || block_height::text
    || ',"hash":' || to_json(block_hash)::text
    || ',"block_time":' || ${num('e.effective')}
    || ',"block_time_iso":"' || ${iso('e.effective')} || '"'
    || ',"tenure_height":'
    || coalesce(tenure_height, CASE WHEN coalesce(signer_bitvec, '') <> '' THEN -1 ELSE block_height END)::text
    || ',"index_block_hash":' || to_json(index_block_hash)::text
    || ',"parent_block_hash":' || to_json(parent_block_hash)::text
    || ',"burn_block_time":' || ${num('burn_block_time')}
    || ',"burn_block_time_iso":"' || ${iso('burn_block_time')} || '"'
    || ',"burn_block_hash":' || to_json(burn_block_hash)::text
    || ',"burn_block_height":' || burn_block_height::text
    || ',"miner_txid":' || to_json(coalesce(miner_txid, ''))::text
    || ',"execution_cost_read_count":' || ${num('read_count')}
    || ',"execution_cost_read_length":' || ${num('read_length')}
    || ',"execution_cost_runtime":' || ${num('runtime')}
    || ',"execution_cost_write_count":' || ${num('write_count')}
    || ',"execution_cost_write_length":' || ${num('write_length')}
    || ',"txs":' AS head
    FROM (SELECT CASE WHEN block_time > 0 THEN block_time ELSE burn_block_time END AS effective) e) t
$$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(V1_FN);
  // (The zero-hash test is written without a regular expression: knex would read its `?` as a binding.)
  // Rewrites the table once (4,000 blocks: well under a second).
  await knex.raw(
    `ALTER TABLE blocks ADD COLUMN v1_json text[] COLLATE "C" GENERATED ALWAYS AS (bda_block_v1_json(
       canonical, block_height, block_hash, block_time, burn_block_time, tenure_height, signer_bitvec,
       index_block_hash, parent_block_hash, burn_block_hash, burn_block_height, miner_txid,
       execution_cost_read_count, execution_cost_read_length, execution_cost_runtime,
       execution_cost_write_count, execution_cost_write_length, parent_microblock_hash,
       parent_microblock_sequence)) STORED`,
  );
  await knex.raw(
    `COMMENT ON COLUMN blocks.v1_json IS 'The block''s own parts of the reference API v1 Block JSON text: up to "txs": and the parent microblock fields (null where the api renders it itself)'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE blocks DROP COLUMN v1_json');
  await knex.raw('DROP FUNCTION bda_block_v1_json');
}
