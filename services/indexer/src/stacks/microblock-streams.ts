import type { Knex } from 'knex';
import { runPrepared } from '../write-statements';

/** What an anchored block says of its parent's microblock stream. */
export interface StreamConfirmation {
  /** The last microblock it confirms (`parent_microblock`), or a zero hash when it confirms none. */
  microblockHash: string;
  /** That microblock's sequence (`parent_microblock_sequence`; ignored with a zero hash). */
  sequence: number;
  blockHash: string;
  indexBlockHash: string;
}

/**
 * The confirmed microblocks of a parent block's streams, by walking back from the last one the confirming block names
 * through each microblock's parent hash: a competing stream from the same parent (a microblock fork) is orphaned even
 * where its sequences are below the confirmed one. Below a microblock the walk cannot find (known neither from a
 * `/new_microblocks` nor from the block's transactions), sequence decides, as the node's numbering does.
 */
const DECIDE_STREAM_SQL = `WITH RECURSIVE chain AS (
       SELECT microblock_hash, microblock_parent_hash, microblock_sequence FROM microblocks
       WHERE parent_index_block_hash = $1 AND microblock_hash = $2
       UNION
       SELECT m.microblock_hash, m.microblock_parent_hash, m.microblock_sequence
       FROM microblocks m JOIN chain c ON m.microblock_hash = c.microblock_parent_hash AND m.parent_index_block_hash = $1
     ),
     decided AS (
       SELECT m.microblock_hash,
              m.microblock_hash IN (SELECT microblock_hash FROM chain)
              OR (m.microblock_sequence <= $3::integer
                  AND m.microblock_sequence < (SELECT coalesce(min(microblock_sequence), $3::integer + 1) FROM chain)) AS confirmed
       FROM microblocks m WHERE m.parent_index_block_hash = $1
     )
     UPDATE microblocks m SET microblock_canonical = d.confirmed, canonical = d.confirmed,
       block_hash = CASE WHEN d.confirmed THEN $4::text END, index_block_hash = CASE WHEN d.confirmed THEN $5::text END
     FROM decided d WHERE m.parent_index_block_hash = $1 AND m.microblock_hash = d.microblock_hash`;

/** Marks the microblocks of `parentHash`'s streams confirmed (and canonical) or orphaned by its canonical child. */
export async function decideStreams(trx: Knex.Transaction, parentHash: string, by: StreamConfirmation): Promise<void> {
  const sequence = /^0x0*$/.test(by.microblockHash) ? -1 : by.sequence;
  await runPrepared(trx, DECIDE_STREAM_SQL, [parentHash, by.microblockHash, sequence, by.blockHash, by.indexBlockHash]);
}

/**
 * The streams built on these blocks that no child has decided yet (not confirmed, not orphaned) are canonical exactly
 * when their block is.
 */
export async function setUnconfirmedStreamsCanonical(
  trx: Knex.Transaction,
  blockHashes: string[],
  canonical: boolean,
): Promise<void> {
  await trx('microblocks')
    .whereRaw('parent_index_block_hash = ANY(?::text[])', [blockHashes])
    .whereNull('index_block_hash')
    .where('microblock_canonical', true)
    .update({ canonical });
}

const BRANCH_STREAMS_SQL = `SELECT b.parent_index_block_hash, b.parent_microblock_hash, b.parent_microblock_sequence,
         b.block_hash, b.index_block_hash
  FROM blocks b
  WHERE b.index_block_hash = ANY($1::text[])
    AND EXISTS (SELECT 1 FROM microblocks m WHERE m.parent_index_block_hash = b.parent_index_block_hash)
  ORDER BY b.block_height`;

/**
 * Blocks that became canonical by a reorg decide their parents' microblock streams now: when they arrived, a
 * competing child was canonical and decided instead (both children may confirm the same stream, or different parts).
 */
export async function redecideStreams(trx: Knex.Transaction, blockHashes: string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const rows = await runPrepared<{
    parent_index_block_hash: string;
    parent_microblock_hash: string;
    parent_microblock_sequence: number;
    block_hash: string;
    index_block_hash: string;
  }>(trx, BRANCH_STREAMS_SQL, [blockHashes]);
  for (const b of rows) {
    await decideStreams(trx, b.parent_index_block_hash, {
      microblockHash: b.parent_microblock_hash,
      sequence: b.parent_microblock_sequence,
      blockHash: b.block_hash,
      indexBlockHash: b.index_block_hash,
    });
  }
}
