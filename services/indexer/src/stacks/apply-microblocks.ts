import type { Knex } from 'knex';
import type { NodeMicroblocks } from './node-payloads';
import { normalizeHex, toJsonText } from './sanitize';
import { refreshChainTip } from './reorg';
import { unnestInsert, WriteBatch } from '../write-statements';
import { decideStreams } from './microblock-streams';

/**
 * `/new_microblocks`: records the streamed microblocks and their transactions. Their effects become
 * canonical through the anchored block that confirms them (its payload repeats the transactions);
 * when that block already arrived (out of order), it decides their flags now (`decideStreams`).
 */
export async function applyNewMicroblocks(trx: Knex.Transaction, body: NodeMicroblocks): Promise<void> {
  const parentHash = normalizeHex(body.parent_index_block_hash);
  const parent = await trx('blocks')
    .where({ index_block_hash: parentHash })
    .first<{ canonical: boolean } | undefined>('canonical');
  const confirming = await trx('blocks')
    .where({ parent_index_block_hash: parentHash, canonical: true })
    .first<
      | { block_hash: string; index_block_hash: string; parent_microblock_hash: string; parent_microblock_sequence: number }
      | undefined
    >('block_hash', 'index_block_hash', 'parent_microblock_hash', 'parent_microblock_sequence');

  const eventsByTx = new Map<string, NodeMicroblocks['events']>();
  for (const e of body.events) {
    const id = normalizeHex(e.txid);
    const list = eventsByTx.get(id);
    if (list) list.push(e);
    else eventsByTx.set(id, [e]);
  }
  const micro = new Map<string, { seq: number; parentHash: string; count: number }>();
  const txRows = [];
  for (const tx of body.transactions) {
    const mh = normalizeHex(tx.microblock_hash ?? '0x');
    const seq = tx.microblock_sequence ?? 0;
    const entry = micro.get(mh) ?? { seq, parentHash: normalizeHex(tx.microblock_parent_hash ?? '0x'), count: 0 };
    entry.count += 1;
    micro.set(mh, entry);
    const txid = normalizeHex(tx.txid);
    txRows.push({
      tx_id: txid,
      microblock_hash: mh,
      parent_index_block_hash: parentHash,
      microblock_sequence: seq,
      tx_index: tx.tx_index,
      raw_tx: Buffer.from(tx.raw_tx.replace(/^0x/, ''), 'hex'),
      status: tx.status,
      raw_result: normalizeHex(tx.raw_result ?? '0x'),
      events: toJsonText(eventsByTx.get(txid) ?? []),
    });
  }
  const rows = [...micro].map(([hash, m]) => {
    return {
      microblock_hash: hash,
      parent_index_block_hash: parentHash,
      microblock_sequence: m.seq,
      microblock_parent_hash: m.parentHash,
      block_hash: null,
      index_block_hash: null,
      tx_count: m.count,
      // Undecided: optimistically canonical with their parent until an anchored block decides (below, when it is here).
      microblock_canonical: true,
      canonical: parent?.canonical === true,
    };
  });
  // Unnest inserts (one array parameter per column): a stream of any length is one statement of a fixed text.
  const writes = new WriteBatch(trx);
  if (rows.length)
    await writes.add(
      await unnestInsert(trx, 'microblocks', rows, { onConflict: ['microblock_hash', 'parent_index_block_hash'] }),
    );
  if (txRows.length)
    await writes.add(await unnestInsert(trx, 'microblock_txs', txRows, { onConflict: ['tx_id', 'microblock_hash'] }));
  await writes.flush();
  // Its confirming block came first: that block's choice decides the stream (which may be a competing one).
  if (confirming) {
    await decideStreams(trx, parentHash, {
      microblockHash: confirming.parent_microblock_hash,
      sequence: confirming.parent_microblock_sequence,
      blockHash: confirming.block_hash,
      indexBlockHash: confirming.index_block_hash,
    });
  }
  if (parent?.canonical) await refreshChainTip(trx, 0);
}
