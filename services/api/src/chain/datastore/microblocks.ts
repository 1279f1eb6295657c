import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';

/** A microblock with the facts of the block it builds on and of the block that confirmed it. */
export interface DbMicroblockRow {
  microblock_hash: string;
  microblock_sequence: number;
  microblock_parent_hash: string;
  parent_index_block_hash: string;
  microblock_canonical: boolean;
  canonical: boolean;
  parent_block_height: number | null;
  parent_block_hash: string | null;
  parent_burn_block_hash: string | null;
  parent_burn_block_time: string | null;
  parent_burn_block_height: number | null;
  confirming_block_hash: string | null;
  /** Its transactions, highest position first. */
  tx_ids: string[] | null;
}

/**
 * A microblock by hash: of the rows with that hash (one per stream it was seen in), the canonical one, else one not
 * orphaned, as the reference picks it (primary key prefix); its parent block (primary key); its transactions — a
 * confirmed one's from the confirming block's canonical `txs` (`txs_block`), an undecided one's as streamed
 * (`microblock_txs_microblock`), none for an orphaned one.
 */
const MICROBLOCK = statement(
  `SELECT ${TIP_SELECT}, m.microblock_hash, m.microblock_sequence, m.microblock_parent_hash, m.parent_index_block_hash,
          m.microblock_canonical, m.canonical, p.block_height AS parent_block_height, p.block_hash AS parent_block_hash,
          p.burn_block_hash AS parent_burn_block_hash, p.burn_block_time AS parent_burn_block_time,
          p.burn_block_height AS parent_burn_block_height, m.block_hash AS confirming_block_hash, tx.tx_ids
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT x.* FROM microblocks x WHERE x.microblock_hash = $1
     ORDER BY x.canonical DESC, x.microblock_canonical DESC, x.parent_index_block_hash LIMIT 1
   ) m ON true
   LEFT JOIN blocks p ON p.index_block_hash = m.parent_index_block_hash
   LEFT JOIN LATERAL (
     SELECT CASE
       WHEN m.index_block_hash IS NOT NULL THEN (
         SELECT array_agg(t.tx_id ORDER BY t.tx_index DESC) FROM txs t
         WHERE t.index_block_hash = m.index_block_hash AND t.microblock_hash = m.microblock_hash AND t.canonical)
       WHEN m.microblock_canonical THEN (
         SELECT array_agg(u.tx_id ORDER BY u.tx_index DESC) FROM microblock_txs u
         WHERE u.microblock_hash = m.microblock_hash AND u.parent_index_block_hash = m.parent_index_block_hash)
     END AS tx_ids
   ) tx ON true`,
);

export async function getMicroblock(db: Knex, hash: string): Promise<{ tip: DbChainTip | null; row: DbMicroblockRow | null }> {
  const [row] = await query<TipColumns & { microblock_hash: string | null }>(db, MICROBLOCK, [hash]);
  return { tip: tipOf(row!), row: rowsCarrying<DbMicroblockRow>([row!], 'microblock_hash')[0] ?? null };
}
