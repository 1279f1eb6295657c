/** Inserting builder rows the way the indexer would have written them. */
import type { Knex } from 'knex';
import {
  ADDRESS_TXS_LIST,
  keepMempoolTxJson,
  keepMempoolTxJsonOfBlocks,
  keepTxListJson,
  keepTxSummaryJson,
  numberedListFillSql,
  type DbAddressTx,
  type DbBlock,
  type DbEvent,
  type DbMempoolTx,
  type DbTx,
} from '@bda/db';
import { BlockRowBuilder } from '../../src/testing/builders';

const json = (v: unknown) => JSON.stringify(v);

export async function insertBlocks(db: Knex, blocks: DbBlock[]): Promise<void> {
  if (blocks.length === 0) return;
  await db('blocks').insert(
    blocks.map((b) => ({ ...b, signer_signature: b.signer_signature === null ? null : json(b.signer_signature) })),
  );
  // Transactions seeded before their blocks (or their children's parents): their kept list texts, rendered again.
  const hashes = blocks.map((b) => b.index_block_hash);
  const { rows } = (await db.raw('SELECT index_block_hash FROM blocks WHERE parent_index_block_hash = ANY(?::text[])', [
    hashes,
  ])) as {
    rows: Array<{ index_block_hash: string }>;
  };
  await keepTxListJson(db, [...new Set([...hashes, ...rows.map((r) => r.index_block_hash)])]);
}

/** Sets the one-row tip to `block` with `blockCount` canonical blocks. */
export async function setChainTip(
  db: Knex,
  block: DbBlock,
  blockCount: number,
  microblock: { hash: string; sequence: number } | null = null,
): Promise<void> {
  await db('chain_tip').delete();
  await db('chain_tip').insert({
    id: true,
    block_height: block.block_height,
    block_hash: block.block_hash,
    index_block_hash: block.index_block_hash,
    burn_block_height: block.burn_block_height,
    block_count: blockCount,
    microblock_hash: microblock?.hash ?? null,
    microblock_sequence: microblock?.sequence ?? null,
  });
}

/** Canonical blocks `from..to` (fork tag `main`) plus the tip pointing at the last one. */
export async function seedCanonicalChain(db: Knex, from: number, to: number): Promise<DbBlock[]> {
  const blocks: DbBlock[] = [];
  for (let h = from; h <= to; h++) blocks.push(new BlockRowBuilder().height(h).build());
  await insertBlocks(db, blocks);
  await setChainTip(db, blocks[blocks.length - 1]!, blocks.length);
  return blocks;
}

export async function insertTxs(db: Knex, txs: DbTx[]): Promise<void> {
  if (txs.length === 0) return;
  await db('txs').insert(
    txs.map((t) => ({
      ...t,
      post_conditions: json(t.post_conditions),
      payload: json(t.payload),
      contract_abi: t.contract_abi === null ? null : json(t.contract_abi),
      burnchain_op: t.burnchain_op === null ? null : json(t.burnchain_op),
    })),
  );
  // As the indexer does: the list texts the api's pages read (tx_list_json, ADR 0035).
  await keepTxListJson(db, [...new Set(txs.map((t) => t.index_block_hash))]);
  // And their v3 summaries (tx_summary_json, ADR 0042).
  await keepTxSummaryJson(db, [...new Set(txs.map((t) => t.index_block_hash))]);
  // And the kept texts of pending calls to the contracts they deploy (ADR 0041).
  await keepMempoolTxJsonOfBlocks(db, [...new Set(txs.map((t) => t.index_block_hash))]);
}

export async function insertEvents(db: Knex, events: DbEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db('events').insert(events);
}

export async function insertMempoolTxs(db: Knex, txs: DbMempoolTx[]): Promise<void> {
  if (txs.length === 0) return;
  await db('mempool_txs').insert(txs.map((t) => ({ ...t, payload: json(t.payload), post_conditions: json(t.post_conditions) })));
  // As the indexer does: the list texts of the pending ones (mempool_tx_json, ADR 0041).
  await keepMempoolTxJson(
    db,
    txs.map((t) => t.tx_id),
  );
}

/** History rows, numbered (migration 087's `seq`), plus the maintained per-address totals (as the indexer keeps them). */
export async function insertAddressTxs(db: Knex, rows: DbAddressTx[]): Promise<void> {
  if (rows.length === 0) return;
  await db('address_txs').insert(rows);
  await db.raw(numberedListFillSql(ADDRESS_TXS_LIST));
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.address, (counts.get(r.address) ?? 0) + 1);
  for (const [address, n] of counts) {
    await db.raw(
      `INSERT INTO address_tx_counts (address, tx_count) VALUES (?, ?)
       ON CONFLICT (address) DO UPDATE SET tx_count = address_tx_counts.tx_count + excluded.tx_count`,
      [address, n],
    );
  }
}
