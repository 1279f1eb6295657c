import type { Knex } from 'knex';
import { numberedListFillSql, type NumberedList } from './076-principal-lists';

/**
 * `principal_txs` (migration 070, what `/extended/v2/addresses/{address}/transactions` reads) as a numbered list (ADR
 * 0024, "Numbered lists"): each row carries `seq`, its 1-based place in the principal's list in the primary key's
 * order (height, microblock sequence, index), without gaps, so a page at any offset is a range of the index
 * `(principal, seq)` instead of a walk over the skipped entries. The indexer writes a block's rows unnumbered (`seq` 0,
 * the default) with migration 070's statement and numbers them in the same transaction
 * (`services/indexer/src/accounts/principal-activity.ts`), moving the rows above up or down when a block fills or
 * leaves a gap, as for migration 076's lists. `up` numbers the rows already indexed.
 */
export const PRINCIPAL_TXS_LIST: NumberedList = {
  table: 'principal_txs',
  principal: 'principal',
  order: ['block_height', 'microblock_sequence', 'tx_index'],
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE principal_txs ADD COLUMN seq integer NOT NULL DEFAULT 0');
  await knex.raw(
    `COMMENT ON COLUMN principal_txs.seq IS '1-based place in the principal’s list, oldest first, no gaps (0 only between a block’s insert and its numbering, in one transaction)'`,
  );
  await knex.raw(numberedListFillSql(PRINCIPAL_TXS_LIST));
  await knex.raw('CREATE INDEX principal_txs_seq ON principal_txs (principal, seq)');
  await knex.raw(`COMMENT ON INDEX principal_txs_seq IS 'A page at any offset: a range of seq'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX principal_txs_seq');
  await knex.raw('ALTER TABLE principal_txs DROP COLUMN seq');
}
