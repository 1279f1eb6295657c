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

/**
 * A page of `/extended/v1/microblock`: the canonical, unorphaned microblocks (confirmed or still undecided), the
 * newest first as the reference orders them (the height of the block they build on, then the sequence, both
 * descending; the confirming block's height less one when the block they build on was never indexed), each with the
 * facts `MICROBLOCK` gives, and their number. Both come from `microblock_order` (migration 089, kept by triggers on
 * `microblocks`): the total is its newest `seq` (one backward probe of the primary key), the page the `seq` range
 * below it at offset `$2`, whatever the offset; each microblock and its parent block are then read by primary key.
 */
const MICROBLOCK_PAGE = statement(
  `SELECT ${TIP_SELECT}, n.total, m.microblock_hash, m.microblock_sequence, m.microblock_parent_hash,
          m.parent_index_block_hash, m.microblock_canonical, m.canonical, m.parent_block_height, m.parent_block_hash,
          m.parent_burn_block_hash, m.parent_burn_block_time, m.parent_burn_block_height,
          m.block_hash AS confirming_block_hash, tx.tx_ids
   FROM ${FROM_TIP}
   CROSS JOIN LATERAL (
     SELECT coalesce((SELECT o.seq FROM microblock_order o ORDER BY o.seq DESC LIMIT 1), 0) AS total OFFSET 0
   ) n
   LEFT JOIN LATERAL (
     SELECT x.*, o.seq AS page_seq, p.block_height AS parent_block_height, p.block_hash AS parent_block_hash,
            p.burn_block_hash AS parent_burn_block_hash, p.burn_block_time AS parent_burn_block_time,
            p.burn_block_height AS parent_burn_block_height
     FROM microblock_order o
     JOIN microblocks x ON x.microblock_hash = o.microblock_hash AND x.parent_index_block_hash = o.parent_index_block_hash
     LEFT JOIN blocks p ON p.index_block_hash = x.parent_index_block_hash
     WHERE o.seq <= n.total - $2::int8 AND o.seq > n.total - $2::int8 - $1::int8
   ) m ON true
   LEFT JOIN LATERAL (
     SELECT CASE
       WHEN m.index_block_hash IS NOT NULL THEN (
         SELECT array_agg(t.tx_id ORDER BY t.tx_index DESC) FROM txs t
         WHERE t.index_block_hash = m.index_block_hash AND t.microblock_hash = m.microblock_hash AND t.canonical)
       ELSE (
         SELECT array_agg(u.tx_id ORDER BY u.tx_index DESC) FROM microblock_txs u
         WHERE u.microblock_hash = m.microblock_hash AND u.parent_index_block_hash = m.parent_index_block_hash)
     END AS tx_ids
   ) tx ON true
   ORDER BY m.page_seq DESC`,
);

export async function getMicroblockPage(
  db: Knex,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; total: number; rows: DbMicroblockRow[] }> {
  const rows = await query<TipColumns & { total: string; microblock_hash: string | null }>(db, MICROBLOCK_PAGE, [
    page.limit,
    page.offset,
  ]);
  const first = rows[0]!;
  return { tip: tipOf(first), total: Number(first.total), rows: rowsCarrying<DbMicroblockRow>(rows, 'microblock_hash') };
}

/** A transaction streamed in a microblock on the tip and not confirmed yet, as stored (raw bytes, not decoded). */
export interface DbUnanchoredTxRow {
  tx_id: string;
  microblock_hash: string;
  microblock_sequence: number;
  microblock_parent_hash: string;
  tx_index: number;
  raw_tx: Buffer;
  status: string;
  raw_result: string;
  event_count: number;
}

/** The tip's block facts an unanchored transaction shows (it will be mined in the tip's child). */
export interface DbUnanchoredTip {
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  burn_block_time: string;
  burn_block_height: number;
}

/**
 * `/extended/v1/microblock/unanchored/txs`: the transactions of the microblocks streamed on the tip that no anchored
 * block decided yet (unorphaned, `block_hash` null; index `microblocks_parent`, then `microblock_txs_microblock`), the
 * newest first (sequence, then position, both descending) as the reference orders them. One stream on one block:
 * bounded by what a miner streams before its next block (and nothing since Nakamoto).
 */
const UNANCHORED_TXS = statement(
  `SELECT ${TIP_SELECT}, tb.burn_block_time AS tb_burn_block_time, tb.burn_block_height AS tb_burn_block_height,
          u.tx_id, u.microblock_hash, u.microblock_sequence, m.microblock_parent_hash, u.tx_index, u.raw_tx, u.status,
          u.raw_result, jsonb_array_length(u.events) AS event_count
   FROM ${FROM_TIP}
   LEFT JOIN blocks tb ON tb.index_block_hash = tip.index_block_hash
   LEFT JOIN microblocks m
     ON m.parent_index_block_hash = tip.index_block_hash AND m.microblock_canonical AND m.block_hash IS NULL
   LEFT JOIN microblock_txs u ON u.microblock_hash = m.microblock_hash AND u.parent_index_block_hash = m.parent_index_block_hash
   ORDER BY m.microblock_sequence DESC, u.tx_index DESC`,
);

export async function getUnanchoredTxs(
  db: Knex,
): Promise<{ tip: DbChainTip | null; tipBlock: DbUnanchoredTip | null; rows: DbUnanchoredTxRow[] }> {
  type Row = TipColumns & { tb_burn_block_time: string | null; tb_burn_block_height: number | null; tx_id: string | null };
  const rows = await query<Row>(db, UNANCHORED_TXS, []);
  const first = rows[0]!;
  const tip = tipOf(first);
  const tipBlock =
    tip && first.tb_burn_block_time !== null
      ? {
          block_height: tip.block_height,
          block_hash: tip.block_hash,
          index_block_hash: tip.index_block_hash,
          burn_block_time: first.tb_burn_block_time,
          burn_block_height: first.tb_burn_block_height!,
        }
      : null;
  return { tip, tipBlock, rows: rowsCarrying<DbUnanchoredTxRow>(rows, 'tx_id') };
}
