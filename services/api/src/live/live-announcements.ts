/**
 * What the indexer announces on PostgreSQL's `LISTEN/NOTIFY` as a transaction of its commits (ADR 0025). The indexer
 * writes them in `services/indexer/src/stacks/live-announcer.ts`; the channel name and the shapes are the contract.
 */
export const LIVE_CHANNEL = 'bda_live';

export type LiveAnnouncement =
  /** A block that became canonical (extending the tip, or by a reorg), lowest first within a commit. */
  | { type: 'block'; index_block_hash: string; block_height: number }
  /** A microblock stored and canonical (its anchor block is). */
  | { type: 'microblock'; microblock_hash: string }
  /** Transactions that entered the mempool and are pending. */
  | { type: 'mempool'; tx_ids: string[] }
  /** Transactions whose state changed otherwise (dropped from the mempool). */
  | { type: 'tx'; tx_ids: string[] };

const HASH = /^0x[0-9a-f]{64}$/;

/** The announcement a notification carries, or undefined when it is not one (ignored: a newer indexer's kind). */
export function parseLiveAnnouncement(payload: string | undefined): LiveAnnouncement | undefined {
  if (!payload) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const a = v as Record<string, unknown>;
  if (a['type'] === 'block') {
    const hash = a['index_block_hash'];
    const height = a['block_height'];
    if (typeof hash === 'string' && HASH.test(hash) && Number.isSafeInteger(height)) {
      return { type: 'block', index_block_hash: hash, block_height: height as number };
    }
    return undefined;
  }
  if (a['type'] === 'microblock') {
    const hash = a['microblock_hash'];
    return typeof hash === 'string' && HASH.test(hash) ? { type: 'microblock', microblock_hash: hash } : undefined;
  }
  if (a['type'] === 'mempool' || a['type'] === 'tx') {
    const ids = a['tx_ids'];
    if (Array.isArray(ids) && ids.every((id) => typeof id === 'string' && HASH.test(id))) {
      return { type: a['type'], tx_ids: ids as string[] };
    }
  }
  return undefined;
}
