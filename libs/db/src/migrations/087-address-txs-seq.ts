import type { Knex } from 'knex';
import { listSeqAt, numberedListFillSql, type NumberedList } from './076-principal-lists';

/**
 * `address_txs` (migration 010, what `/extended/v1/address/{principal}/transactions` reads) as a numbered list (ADR
 * 0024, "Numbered lists"), as migration 077 made of `principal_txs`: each row carries `seq`, its 1-based place in the
 * address's list in the primary key's order (height, microblock sequence, index), without gaps, so a page at any
 * offset is a range of the index `(address, seq)` and a total (up to a height, or at one) one or two index reads,
 * instead of a walk over the skipped entries and a count. `principal_txs` is not reused for v1: its members differ
 * (the parties of FT and NFT events count there, not here: ADR 0016).
 *
 * The indexer keeps it in the block's transaction (`services/indexer/src/stacks/read-models.ts`): a block that extends
 * the canonical tip has its rows written numbered (after the address's newest row, every existing row being below
 * it); a block joining under canonical blocks (a reorg's branch, a late block filling a gap) has its rows written
 * unnumbered and then each address's rows from the block's height up renumbered (`addressTxsRenumberSql`); a block
 * leaving has its rows deleted and the rows above renumbered the same way. `up` numbers the rows already indexed.
 */
export const ADDRESS_TXS_LIST: NumberedList = {
  table: 'address_txs',
  principal: 'address',
  order: ['block_height', 'microblock_sequence', 'tx_index'],
};

/**
 * The statement that renumbers the rows of each address of `$1` (text[]) from the height at the same place of `$2`
 * (integer[]) up: the row above each address's newest row below that height is `seq` + 1, and so on without gaps.
 * The rows below the height must be numbered already. Rows whose number does not change are not written.
 */
export function addressTxsRenumberSql(): string {
  return `WITH per AS (
       SELECT address, min(height) AS height FROM unnest($1::text[], $2::integer[]) AS p(address, height) GROUP BY address
     ),
     renumbered AS (
       SELECT s.address, s.block_height, s.microblock_sequence, s.tx_index,
              b.base + row_number() OVER (PARTITION BY s.address ORDER BY s.block_height, s.microblock_sequence, s.tx_index) AS seq
       FROM per
       CROSS JOIN LATERAL (SELECT ${listSeqAt(ADDRESS_TXS_LIST, 'per.address', '< per.height')} AS base) b
       JOIN address_txs s ON s.address = per.address AND s.block_height >= per.height
     )
     UPDATE address_txs s SET seq = r.seq FROM renumbered r
     WHERE s.address = r.address AND s.block_height = r.block_height AND s.microblock_sequence = r.microblock_sequence
       AND s.tx_index = r.tx_index AND s.seq <> r.seq`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE address_txs ADD COLUMN seq integer NOT NULL DEFAULT 0');
  await knex.raw(
    `COMMENT ON COLUMN address_txs.seq IS '1-based place in the address’s list, oldest first, no gaps (0 only between a block’s insert and its numbering, in one transaction)'`,
  );
  await knex.raw(numberedListFillSql(ADDRESS_TXS_LIST));
  await knex.raw('CREATE INDEX address_txs_seq ON address_txs (address, seq)');
  await knex.raw(`COMMENT ON INDEX address_txs_seq IS 'A page at any offset: a range of seq'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX address_txs_seq');
  await knex.raw('ALTER TABLE address_txs DROP COLUMN seq');
}
