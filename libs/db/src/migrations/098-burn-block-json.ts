import type { Knex } from 'knex';

/**
 * `chain_burn_blocks` keeps what the reference API's `BurnBlock` shows of its Stacks blocks (issue 24, ADR 0036), so
 * a page of `/extended/v2/burn-blocks` no longer aggregates the canonical blocks of each of its burn blocks per
 * request (a lateral index scan, three `array_agg`s and a `text[]` the api parses, per row):
 * - `stacks_blocks`: their block hashes, highest first, as a JSON array text;
 * - `block_count`, `first_time`, `last_time`: how many there are and the times (own, else the burn block's) of the
 *   lowest and highest, from which the api computes `avg_block_time` as it did (JavaScript's `toFixed`);
 * - `json_head` (stored generated): the answer's text of the burn block up to `"avg_block_time":`, byte for byte what
 *   `toBurnBlockResponse` then `JSON.stringify` give; null where `Date#toISOString` or JavaScript's numbers would
 *   write something else than `to_char` (a time before 1970 or from the year 10000 on): the api then answers from the
 *   blocks as before.
 * The indexer computes the first four with the rest of the row from the canonical blocks at that burn height
 * (`services/indexer/src/chain/chain-read-models.ts`), in the transaction that adds or removes blocks, reorgs
 * included; `up` fills them from the rows already indexed.
 */

const HEAD_FN = `CREATE FUNCTION bda_burn_block_json_head(
    burn_block_time bigint, burn_block_hash text, burn_block_height int, stacks_blocks text)
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '{"burn_block_time":' || burn_block_time::text
    || ',"burn_block_time_iso":"'
    || CASE WHEN burn_block_time BETWEEN 0 AND 253402300799
            THEN to_char(to_timestamp(burn_block_time) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"') END
    || '","burn_block_hash":' || to_json(burn_block_hash)::text
    || ',"burn_block_height":' || burn_block_height::text
    || ',"stacks_blocks":' || stacks_blocks
    || ',"avg_block_time":'
$$`;

/**
 * Per burn height of the canonical blocks, the kept parts; `blocks` a relation of canonical blocks. The same
 * expressions as the indexer's (`chain-read-models.ts`).
 */
const BURN_BLOCK_PARTS_SELECT = `'[' || string_agg(to_json(b.block_hash)::text, ',' ORDER BY b.block_height DESC) || ']' AS stacks_blocks,
  count(*)::int AS block_count,
  (array_agg(coalesce(nullif(b.block_time, 0), b.burn_block_time) ORDER BY b.block_height))[1] AS first_time,
  (array_agg(coalesce(nullif(b.block_time, 0), b.burn_block_time) ORDER BY b.block_height DESC))[1] AS last_time`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `ALTER TABLE chain_burn_blocks ADD COLUMN stacks_blocks text COLLATE "C", ADD COLUMN block_count int,
       ADD COLUMN first_time bigint, ADD COLUMN last_time bigint`,
  );
  await knex.raw(
    `UPDATE chain_burn_blocks c SET stacks_blocks = s.stacks_blocks, block_count = s.block_count,
       first_time = s.first_time, last_time = s.last_time
     FROM (SELECT b.burn_block_height, ${BURN_BLOCK_PARTS_SELECT} FROM blocks b WHERE b.canonical GROUP BY b.burn_block_height) s
     WHERE s.burn_block_height = c.burn_block_height`,
  );
  await knex.raw(
    `ALTER TABLE chain_burn_blocks ALTER COLUMN stacks_blocks SET NOT NULL, ALTER COLUMN block_count SET NOT NULL,
       ALTER COLUMN first_time SET NOT NULL, ALTER COLUMN last_time SET NOT NULL`,
  );
  await knex.raw(HEAD_FN);
  await knex.raw(
    `ALTER TABLE chain_burn_blocks ADD COLUMN json_head text COLLATE "C"
       GENERATED ALWAYS AS (bda_burn_block_json_head(burn_block_time, burn_block_hash, burn_block_height, stacks_blocks)) STORED`,
  );
  for (const [column, comment] of [
    ['stacks_blocks', 'Block hashes of its canonical Stacks blocks, highest first, as a JSON array text'],
    ['block_count', 'How many canonical Stacks blocks it holds'],
    ['first_time', 'Time of the lowest of them (block time, else the burn block time), Unix seconds'],
    ['last_time', 'Time of the highest of them, likewise'],
    ['json_head', 'The reference API BurnBlock JSON text up to "avg_block_time": (null where the api renders it itself)'],
  ]) {
    await knex.raw(`COMMENT ON COLUMN chain_burn_blocks.${column} IS '${comment}'`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `ALTER TABLE chain_burn_blocks DROP COLUMN json_head, DROP COLUMN stacks_blocks, DROP COLUMN block_count,
       DROP COLUMN first_time, DROP COLUMN last_time`,
  );
  await knex.raw('DROP FUNCTION bda_burn_block_json_head');
}
