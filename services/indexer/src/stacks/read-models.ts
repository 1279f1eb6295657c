import type { Knex } from 'knex';
import { runPrepared } from '../sql';

/** Microblock sequence used for anchored transactions in the per-address ordering (sorts after microblock txs). */
export const ANCHORED_SEQUENCE = 2147483647;

/**
 * Everything a block entering the canonical chain changes in the read models, in one statement:
 * per-address history and totals, and its transactions leaving the mempool.
 */
export async function addCanonicalBlockReadModels(trx: Knex.Transaction, blockHashes: string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  // A prepared statement: planning this one costs more than running it for a block or two.
  await runPrepared(trx, ADD_READ_MODELS_SQL, [blockHashes]);
}

const ADDRESS_TXS_CTES = `parties AS (
       SELECT p.address, tx.block_height, coalesce(tx.microblock_sequence, ${ANCHORED_SEQUENCE}) AS mseq,
              tx.tx_index, tx.tx_id, tx.index_block_hash
       FROM txs tx,
            LATERAL (VALUES (tx.sender_address), (tx.sponsor_address), (tx.payload->>'recipient_address'), (tx.contract_id)) AS p(address)
       WHERE tx.index_block_hash = ANY(:hashes) AND p.address IS NOT NULL
       UNION
       SELECT p.address, tx.block_height, coalesce(tx.microblock_sequence, ${ANCHORED_SEQUENCE}), tx.tx_index, tx.tx_id, tx.index_block_hash
       FROM events e
       JOIN txs tx ON tx.tx_id = e.tx_id AND tx.index_block_hash = e.index_block_hash,
            LATERAL (VALUES (e.sender), (e.recipient), (e.locked_address)) AS p(address)
       WHERE e.index_block_hash = ANY(:hashes) AND e.committed AND p.address IS NOT NULL
     ),
     inserted AS (
       INSERT INTO address_txs (address, block_height, microblock_sequence, tx_index, tx_id, index_block_hash)
       SELECT address, block_height, mseq, tx_index, tx_id, index_block_hash FROM parties
       ON CONFLICT DO NOTHING
       RETURNING address
     )`;

const INSERT_COUNTS = `INSERT INTO address_tx_counts (address, tx_count)
     SELECT address, count(*) FROM inserted GROUP BY address
     ON CONFLICT (address) DO UPDATE SET tx_count = address_tx_counts.tx_count + excluded.tx_count`;

const MARK_MINED = `UPDATE mempool_txs m SET status = 'mined'
     FROM txs t WHERE t.index_block_hash = ANY(:hashes) AND t.tx_id = m.tx_id AND m.status <> 'mined'`;

const ADD_READ_MODELS_SQL = `WITH ${ADDRESS_TXS_CTES},
     counted AS (${INSERT_COUNTS} RETURNING 1),
     mined AS (${MARK_MINED} RETURNING 1)
     SELECT (SELECT count(*) FROM counted) AS counted, (SELECT count(*) FROM mined) AS mined`.replace(/:hashes/g, '$1::text[]');

/** Removes the history rows of blocks leaving the canonical chain, and their share of the totals. */
export async function removeAddressTxs(trx: Knex.Transaction, blockHashes: string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  await trx.raw(
    `WITH deleted AS (
       DELETE FROM address_txs WHERE index_block_hash = ANY(:hashes) RETURNING address
     )
     UPDATE address_tx_counts c SET tx_count = c.tx_count - d.n
     FROM (SELECT address, count(*) AS n FROM deleted GROUP BY address) d
     WHERE c.address = d.address`,
    { hashes: blockHashes },
  );
}

/**
 * Transactions of orphaned blocks that no canonical block includes go back to the mempool (a node
 * would re-mine them), except coinbase/tenure-change and burnchain operations, which cannot be.
 */
export async function restoreOrphanedToMempool(trx: Knex.Transaction, blockHashes: string[], receiptTime: string): Promise<void> {
  if (blockHashes.length === 0) return;
  await trx.raw(
    `INSERT INTO mempool_txs (tx_id, raw_tx, type_id, sender_address, sponsor_address, nonce, fee_rate, payload,
                              post_conditions, post_condition_mode, anchor_mode, contract_id, status, receipt_time)
     SELECT DISTINCT ON (t.tx_id) t.tx_id, t.raw_tx, t.type_id, t.sender_address, t.sponsor_address, t.nonce, t.fee_rate,
            t.payload, t.post_conditions, t.post_condition_mode, t.anchor_mode, t.contract_id, 'pending', :receiptTime
     FROM txs t
     WHERE t.index_block_hash = ANY(:hashes)
       AND t.type_id NOT IN ('coinbase', 'tenure_change', 'poison_microblock')
       AND t.raw_tx <> '\\x00'::bytea
       AND NOT EXISTS (SELECT 1 FROM txs c WHERE c.tx_id = t.tx_id AND c.canonical)
     ON CONFLICT (tx_id) DO UPDATE SET status = 'pending' WHERE mempool_txs.status = 'mined'`,
    { hashes: blockHashes, receiptTime },
  );
}

/**
 * Blocks that extended the canonical tip in the current batch, whose per-address history and mined
 * mempool entries are written together by one statement. Flushed before anything that reads or
 * rewrites those read models (a reorg) and before the batch's position commits. A block rolled back
 * with its savepoint leaves a hash that matches no row, so flushing it is harmless.
 */
export class DeferredReadModels {
  private hashes: string[] = [];

  add(hash: string): void {
    this.hashes.push(hash);
  }

  reset(): void {
    this.hashes = [];
  }

  async flush(trx: Knex.Transaction): Promise<void> {
    if (this.hashes.length === 0) return;
    const hashes = this.hashes;
    this.hashes = [];
    await addCanonicalBlockReadModels(trx, hashes);
  }
}
