import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';
import { createStatementTriggers, dropStatementTriggers } from './statement-triggers';

/**
 * `microblock_order` (issue 24): the canonical, unorphaned microblocks in the order `/extended/v1/microblock` lists
 * them, numbered, so that the list's total is the newest row's `seq` (one backward probe of the primary key) and a page
 * at any offset a range of `seq`, instead of sorting and counting every canonical microblock per request.
 *
 * The order is the reference's: the height of the block the microblock builds on (the confirming block's height less
 * one when that block was never indexed; -1 when neither is known), then the sequence; ties, which only competing
 * undecided streams can have, by microblock hash then parent. `seq` is the 1-based place oldest first, no gaps.
 *
 * Kept by statement-level triggers on `microblocks` (as migrations 085 and 086 keep the mempool's, ADR 0028): every way
 * a microblock enters or leaves the list (streamed, recorded from a confirming block, confirmed, orphaned, its block
 * leaving or joining the canonical chain) is a row change there, whichever indexer code makes it. Each statement finds
 * the lowest sort height among the rows it changed that are or were in the list, deletes the rows from that height up
 * and numbers them again from the microblocks there (index `blocks_height`, then `microblocks_parent` or
 * `microblocks_confirmed_by`): a stream on the tip moves the top rows only. `up` fills it from the rows already indexed.
 */

/** The list's rows whose sort height is `low` or more (all of them when `low` is negative), as `microblock_order` columns. */
function listedFrom(low: string): string {
  return `SELECT p.block_height AS sort_height, m.microblock_sequence, m.microblock_hash, m.parent_index_block_hash
      FROM blocks p JOIN microblocks m ON m.parent_index_block_hash = p.index_block_hash
      WHERE p.block_height >= ${low} AND m.canonical AND m.microblock_canonical
      UNION ALL
      SELECT c.block_height - 1, m.microblock_sequence, m.microblock_hash, m.parent_index_block_hash
      FROM blocks c JOIN microblocks m ON m.index_block_hash = c.index_block_hash
      WHERE c.block_height >= ${low} + 1 AND m.canonical AND m.microblock_canonical
        AND NOT EXISTS (SELECT 1 FROM blocks p WHERE p.index_block_hash = m.parent_index_block_hash)
      UNION ALL
      SELECT -1, m.microblock_sequence, m.microblock_hash, m.parent_index_block_hash
      FROM microblocks m
      WHERE ${low} < 0 AND m.canonical AND m.microblock_canonical
        AND NOT EXISTS (SELECT 1 FROM blocks p WHERE p.index_block_hash = m.parent_index_block_hash)
        AND NOT EXISTS (SELECT 1 FROM blocks c WHERE c.index_block_hash = m.index_block_hash)`;
}

/** Numbers `listedFrom(low)` after the rows below it (`base`). */
function insertListed(low: string, base: string): string {
  return `INSERT INTO microblock_order (seq, sort_height, microblock_sequence, microblock_hash, parent_index_block_hash)
    SELECT ${base} + row_number() OVER (ORDER BY f.sort_height, f.microblock_sequence, f.microblock_hash, f.parent_index_block_hash),
           f.sort_height, f.microblock_sequence, f.microblock_hash, f.parent_index_block_hash
    FROM (${listedFrom(low)}) f`;
}

/** The sort height of each new row now in the list. */
const NEW_LISTED = `SELECT coalesce((SELECT b.block_height FROM blocks b WHERE b.index_block_hash = n.parent_index_block_hash),
                   (SELECT b.block_height - 1 FROM blocks b WHERE b.index_block_hash = n.index_block_hash), -1) AS h
    FROM new_rows n WHERE n.canonical AND n.microblock_canonical`;

/** The sort height each old row had in the list. */
const OLD_LISTED = `SELECT o.sort_height FROM old_rows r
    JOIN microblock_order o ON o.microblock_hash = r.microblock_hash AND o.parent_index_block_hash = r.parent_index_block_hash`;

function triggerBody(changed: string): string {
  return `DECLARE low integer;
    BEGIN
      SELECT min(h) INTO low FROM (${changed}) c(h);
      IF low IS NOT NULL THEN
        DELETE FROM microblock_order WHERE sort_height >= low;
        ${insertListed('low', 'coalesce((SELECT max(seq) FROM microblock_order), 0)')};
      END IF;
    END;`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('microblock_order', (t) => {
    t.comment('Canonical unorphaned microblocks in /extended/v1/microblock order, numbered (kept by triggers on microblocks)');
    t.integer('seq').primary().comment('1-based place in the list, oldest first, no gaps; the newest row’s is the total');
    t.integer('sort_height')
      .notNullable()
      .comment('Height of the block it builds on (the confirming block’s less one if that is unknown; -1 if neither is)');
    t.integer('microblock_sequence').notNullable().comment('Sequence in its stream');
    t.text('microblock_hash').notNullable().comment('Microblock (with the parent, the key of microblocks)');
    t.text('parent_index_block_hash').notNullable().comment('Anchored block the stream builds on');
  });
  await bytewiseText(knex, 'microblock_order');
  await knex.raw('CREATE INDEX microblock_order_height ON microblock_order (sort_height)');
  await knex.raw(`COMMENT ON INDEX microblock_order_height IS 'The rows from a sort height up, numbered again by the triggers'`);
  await knex.raw('CREATE UNIQUE INDEX microblock_order_key ON microblock_order (microblock_hash, parent_index_block_hash)');
  await knex.raw(`COMMENT ON INDEX microblock_order_key IS 'The row of a changed microblock'`);
  await knex.raw(insertListed('-1', '0'));
  await createStatementTriggers(knex, 'microblocks', 'microblock_order', (op) =>
    triggerBody(op === 'insert' ? NEW_LISTED : op === 'delete' ? OLD_LISTED : `${NEW_LISTED} UNION ALL ${OLD_LISTED}`),
  );
}

export async function down(knex: Knex): Promise<void> {
  await dropStatementTriggers(knex, 'microblocks', 'microblock_order');
  await knex.schema.dropTable('microblock_order');
}
