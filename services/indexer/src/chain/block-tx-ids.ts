/** What `block_tx_ids` (migration 093) reads of a block's transaction rows. */
export interface BlockTxIdsTx {
  tx_id: string;
  tx_index: number;
  microblock_hash: string | null;
  microblock_sequence: number | null;
}

/** A row of `block_tx_ids`. */
export interface DbBlockTxIds {
  index_block_hash: string;
  /** JSON array text of the ids, no spaces. */
  tx_ids: string;
  /** JSON object text: microblock hash → how many of the block's transactions it carried; null when none. */
  microblock_tx_counts: string | null;
}

/** The sequence an anchored transaction sorts under: above every microblock's, as the reference's rows carry it. */
const ANCHORED = 2147483647;

/**
 * The `block_tx_ids` row of a block from its transaction rows as they are written to `txs` (null for a block without
 * transactions). A repeated id counts once, at its first row, as `txs`' `ON CONFLICT DO NOTHING` keeps it. The order is
 * the reference's v1 `Block.txs`: by microblock sequence descending (anchored ones first), then by position descending.
 */
export function blockTxIdsRow(indexBlockHash: string, txs: readonly BlockTxIdsTx[]): DbBlockTxIds | null {
  const seen = new Set<string>();
  const kept: BlockTxIdsTx[] = [];
  for (const t of txs) {
    if (seen.has(t.tx_id)) continue;
    seen.add(t.tx_id);
    kept.push(t);
  }
  if (kept.length === 0) return null;
  kept.sort((a, b) => (b.microblock_sequence ?? ANCHORED) - (a.microblock_sequence ?? ANCHORED) || b.tx_index - a.tx_index);
  const counts: Record<string, number> = {};
  let carried = false;
  for (const t of kept) {
    if (t.microblock_hash === null) continue;
    counts[t.microblock_hash] = (counts[t.microblock_hash] ?? 0) + 1;
    carried = true;
  }
  return {
    index_block_hash: indexBlockHash,
    tx_ids: JSON.stringify(kept.map((t) => t.tx_id)),
    microblock_tx_counts: carried ? JSON.stringify(counts) : null,
  };
}
