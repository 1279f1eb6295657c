import type { Knex } from 'knex';
import type { NodeMicroblocks } from './node-payloads';
import { normalizeHex, toJsonText } from './sanitize';
import { refreshChainTip } from './fork-choice';

/**
 * `/new_microblocks`: records the streamed microblocks and their transactions. Their effects become
 * canonical through the anchored block that confirms them (its payload repeats the transactions);
 * when that block already arrived (out of order), its confirmed sequence decides their flags now.
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
  const confirmedSeq = confirming
    ? /^0x0*$/.test(confirming.parent_microblock_hash)
      ? -1
      : confirming.parent_microblock_sequence
    : null;

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
      events: toJsonText(body.events.filter((e) => normalizeHex(e.txid) === txid)),
    });
  }
  const rows = [...micro].map(([hash, m]) => {
    const confirmed = confirmedSeq !== null && m.seq <= confirmedSeq;
    return {
      microblock_hash: hash,
      parent_index_block_hash: parentHash,
      microblock_sequence: m.seq,
      microblock_parent_hash: m.parentHash,
      block_hash: confirmed ? confirming!.block_hash : null,
      index_block_hash: confirmed ? confirming!.index_block_hash : null,
      tx_count: m.count,
      // Unconfirmed streams are optimistically canonical until an anchored block decides.
      microblock_canonical: confirmedSeq === null ? true : confirmed,
      canonical: confirmedSeq === null ? parent?.canonical === true : confirmed,
    };
  });
  if (rows.length) await trx('microblocks').insert(rows).onConflict(['microblock_hash', 'parent_index_block_hash']).ignore();
  if (txRows.length) await trx('microblock_txs').insert(txRows).onConflict(['tx_id', 'microblock_hash']).ignore();
  if (parent?.canonical) await refreshChainTip(trx, 0);
}
