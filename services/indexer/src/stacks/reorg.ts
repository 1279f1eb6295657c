import type { Knex } from 'knex';
import { keepMempoolTxJsonOfBlocks, keepTxListJson } from '@bda/db';
import type { NodeBlock } from './node-payloads';
import { addCanonicalBlockReadModels, removeAddressTxs, restoreOrphanedToMempool } from './read-models';
import { normalizeHex } from './sanitize';
import { runPrepared } from '../write-statements';
import { redecideStreams, setUnconfirmedStreamsCanonical } from './microblock-streams';
import { addCanonicalBnsBlocks, refreshAddressNamesAtTip, removeBnsBlocks } from '../bns';

const CHAIN_TABLES = ['blocks', 'txs', 'events', 'miner_rewards'] as const;

/**
 * Flips the canonical flag of whole blocks (their transactions, events, rewards and confirmed
 * microblocks) and moves the read models with them.
 */
async function setCanonical(trx: Knex.Transaction, blockHashes: string[], canonical: boolean): Promise<void> {
  if (blockHashes.length === 0) return;
  for (const table of CHAIN_TABLES) {
    await trx(table).whereRaw('index_block_hash = ANY(?::text[])', [blockHashes]).update({ canonical });
  }
  await trx('microblocks').whereRaw('index_block_hash = ANY(?::text[])', [blockHashes]).update({ canonical });
  await setUnconfirmedStreamsCanonical(trx, blockHashes, canonical);
  if (canonical) {
    // Their kept list texts, rendered again now that they and their contracts' deploys are canonical (ADR 0035).
    await keepTxListJson(trx, blockHashes);
    await addCanonicalBlockReadModels(trx, blockHashes);
    await addCanonicalBnsBlocks(trx, blockHashes);
  } else {
    // Mempool restoration waits until the new branch is canonical: see `reorgToTip`.
    await removeAddressTxs(trx, blockHashes);
    await removeBnsBlocks(trx, blockHashes);
  }
}

const BRANCH_SQL = `WITH RECURSIVE branch AS (
    SELECT index_block_hash, parent_index_block_hash, block_height, canonical, 0 AS depth
    FROM blocks WHERE index_block_hash = $1
    UNION ALL
    SELECT b.index_block_hash, b.parent_index_block_hash, b.block_height, b.canonical, branch.depth + 1
    FROM branch JOIN blocks b ON b.index_block_hash = branch.parent_index_block_hash
    WHERE NOT branch.canonical
  )
  SELECT index_block_hash, parent_index_block_hash, block_height, canonical, depth FROM branch ORDER BY depth`;

interface BranchBlock {
  index_block_hash: string;
  parent_index_block_hash: string;
  block_height: number;
  canonical: boolean;
}

/**
 * The reorg: makes `tipHash` the canonical tip. Walks back to the first canonical ancestor (the fork point),
 * orphans every canonical block above it, then makes the new branch canonical. A branch whose oldest
 * known block has no known parent (detached) replaces everything from its own lowest height up.
 * With `upToHeight`, only blocks up to that height are orphaned: `tipHash` then joins a canonical chain that already
 * goes on above it (its child came first).
 * Returns how many canonical blocks this added (branch length minus blocks orphaned).
 */
export async function reorgToTip(
  trx: Knex.Transaction,
  tipHash: string,
  receiptTime: string,
  upToHeight?: number,
): Promise<number> {
  // The branch in one round trip (not one per block): from the tip down through its non-canonical ancestors, plus
  // the first canonical ancestor (the fork point) when there is one. Recursion stops at a canonical block or a parent
  // that is not stored.
  const rows = await runPrepared<BranchBlock & { depth: number }>(trx, BRANCH_SQL, [tipHash]);
  const branch = rows.filter((r) => !r.canonical);
  const forkPoint = rows.find((r) => r.canonical);
  const forkHeight: number | null = forkPoint ? forkPoint.block_height : null;
  if (branch.length === 0) return 0;
  const orphanFrom = forkHeight !== null ? forkHeight + 1 : branch[branch.length - 1]!.block_height;
  const held = trx('blocks').where('canonical', true).andWhere('block_height', '>=', orphanFrom);
  if (upToHeight !== undefined) held.andWhere('block_height', '<=', upToHeight);
  const orphaned: string[] = (await held.select('index_block_hash')).map((r: { index_block_hash: string }) => r.index_block_hash);
  await setCanonical(trx, orphaned, false);
  const branchHashes = branch.map((b) => b.index_block_hash);
  await setCanonical(trx, branchHashes, true);
  // A block that joins the canonical chain now decides its parent's microblocks, as it would have on arrival.
  await redecideStreams(trx, branchHashes);
  await restoreOrphanedToMempool(trx, orphaned, receiptTime);
  // The kept texts of pending transactions (ADR 0041): those sent back to the mempool, and the calls to contracts
  // whose first canonical deploy (their ABI) left or joined the canonical chain with these blocks.
  await keepMempoolTxJsonOfBlocks(trx, orphaned, { restored: true });
  await keepMempoolTxJsonOfBlocks(trx, branchHashes);
  return branchHashes.length - orphaned.length;
}

/**
 * Rewrites the one-row tip from the highest canonical block; `countDelta` is how many canonical
 * blocks the caller added (negative when it removed some), so no count over the chain is needed.
 */
export async function refreshChainTip(trx: Knex.Transaction, countDelta: number): Promise<void> {
  const tip = await trx('blocks')
    .where('canonical', true)
    .orderBy('block_height', 'desc')
    .first('block_height', 'block_hash', 'index_block_hash', 'burn_block_height');
  if (!tip) {
    await trx('chain_tip').delete();
    await refreshAddressNamesAtTip(trx);
    return;
  }
  const previous = await trx('chain_tip').first<{ block_count: number; block_height: number } | undefined>(
    'block_count',
    'block_height',
  );
  const micro = await trx('microblocks')
    .where({ parent_index_block_hash: tip.index_block_hash, microblock_canonical: true })
    .whereNull('block_hash')
    .orderBy('microblock_sequence', 'desc')
    .first('microblock_hash', 'microblock_sequence');
  await trx('chain_tip')
    .insert({
      id: true,
      ...tip,
      block_count: (previous?.block_count ?? 0) + countDelta,
      microblock_hash: micro?.microblock_hash ?? null,
      microblock_sequence: micro?.microblock_sequence ?? null,
    })
    .onConflict('id')
    .merge();
  // The kept naming answers whose names' expiries the tip has crossed (migration 094): only when its height moved
  // (a microblock rewrites the tip at the same height).
  if (previous?.block_height !== tip.block_height) await refreshAddressNamesAtTip(trx);
}

/** The tip moves to a child of the previous tip: one upsert, counting one more canonical block. */
export function advanceChainTip(trx: Knex.Transaction, block: NodeBlock, hash: string): Knex.Raw {
  return trx.raw(
    `INSERT INTO chain_tip (id, block_height, block_hash, index_block_hash, burn_block_height, block_count, microblock_hash, microblock_sequence)
     VALUES (true, :height, :blockHash, :hash, :burnHeight, 1, NULL, NULL)
     ON CONFLICT (id) DO UPDATE SET block_height = excluded.block_height, block_hash = excluded.block_hash,
       index_block_hash = excluded.index_block_hash, burn_block_height = excluded.burn_block_height,
       block_count = chain_tip.block_count + 1, microblock_hash = NULL, microblock_sequence = NULL`,
    { height: block.block_height, blockHash: normalizeHex(block.block_hash), hash, burnHeight: block.burn_block_height },
  );
}
