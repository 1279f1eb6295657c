import type { Knex } from 'knex';
import { keepPrincipalTxJson, removePrincipalTxJson } from '@bda/db';
import { addNftBlock, refreshNftHoldings, removeNftBlocks, type NftKey } from './nft-owners';
import { addActivityBlock, removeActivityBlocks } from './principal-activity';
import { addListBlock, removeListBlocks } from './principal-lists';
import { addStxBlock, removeStxBlock } from './stx-balances';
import { addSupplyBlock, removeSupplyBlock } from './stx-supply';
import { addTokenBlock, refreshTokenBalances, removeTokenBlock } from './token-balances';

interface BlockRef {
  index_block_hash: string;
  block_height: number;
}

async function heightsOf(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<BlockRef[]> {
  return trx('blocks')
    .whereRaw('index_block_hash = ANY(?::text[])', [[...blockHashes]])
    .orderBy('block_height', 'asc')
    .select<BlockRef[]>('index_block_hash', 'block_height');
}

/**
 * The account read models (ADR 0024; the STX supply and the principals' per-transaction activity, migrations 070–071;
 * the numbered v1 address lists, migration 076)
 * of blocks joining the canonical chain, from their stored events, transactions
 * and miner rewards: lowest first, so each block's running totals build on the one below.
 */
export async function addCanonicalAccountBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const keys = [];
  const nftKeys: NftKey[] = [];
  for (const block of await heightsOf(trx, blockHashes)) {
    await addStxBlock(trx, block.index_block_hash, block.block_height);
    keys.push(...(await addTokenBlock(trx, block.index_block_hash, block.block_height)));
    nftKeys.push(...(await addNftBlock(trx, block.index_block_hash)));
    await addSupplyBlock(trx, block.index_block_hash, block.block_height);
    await addActivityBlock(trx, block.index_block_hash);
    await addListBlock(trx, block.index_block_hash);
  }
  // The per-principal texts of the address histories, from the rows just added (migration 102, ADR 0039).
  await keepPrincipalTxJson(trx, blockHashes);
  await refreshTokenBalances(trx, keys);
  await refreshNftHoldings(trx, nftKeys);
}

/** Undoes exactly what `addCanonicalAccountBlocks` did for blocks leaving the canonical chain: highest first. */
export async function removeAccountBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const keys = [];
  for (const block of (await heightsOf(trx, blockHashes)).reverse()) {
    await removeStxBlock(trx, block.index_block_hash);
    await removeSupplyBlock(trx, block.index_block_hash);
    keys.push(...(await removeTokenBlock(trx, block.index_block_hash)));
  }
  const nftKeys = await removeNftBlocks(trx, blockHashes);
  await removeActivityBlocks(trx, blockHashes);
  await removeListBlocks(trx, blockHashes);
  await removePrincipalTxJson(trx, blockHashes);
  await refreshTokenBalances(trx, keys);
  await refreshNftHoldings(trx, nftKeys);
}
