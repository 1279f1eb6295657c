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

/** A transaction of a block and the principals it involves (sender, sponsor, recipient, deployed contract). */
export interface BlockTxParties {
  tx_id: string;
  tx_index: number;
  microblock_sequence: number | null;
  parties: Array<string | null>;
}

/** An event of a block and the principals it involves (sender, recipient, locked address). */
export interface BlockEventParties {
  tx_id: string;
  committed: boolean;
  parties: Array<string | null>;
}

/**
 * The read-model writes of a new block that extends the canonical tip, computed from the block itself rather than
 * read back from `txs`/`events` (so they can go in the same statement as the block's rows): the same rows
 * `addCanonicalBlockReadModels` derives. Every history row is new — no canonical block at this height existed — so
 * each address's total grows by its number of rows here.
 */
export function canonicalBlockReadModelWrites(
  trx: Knex.Transaction,
  block: { index_block_hash: string; block_height: number },
  txs: BlockTxParties[],
  events: BlockEventParties[],
): Knex.QueryBuilder[] {
  const rows = new Map<string, { address: string; tx: BlockTxParties }>();
  const add = (address: string | null, tx: BlockTxParties) => {
    if (address !== null)
      rows.set(`${address}\u0000${tx.tx_index}\u0000${tx.microblock_sequence ?? ANCHORED_SEQUENCE}`, { address, tx });
  };
  const byId = new Map(txs.map((tx) => [tx.tx_id, tx]));
  for (const tx of txs) for (const address of tx.parties) add(address, tx);
  for (const ev of events) {
    const tx = byId.get(ev.tx_id);
    if (!tx || !ev.committed) continue;
    for (const address of ev.parties) add(address, tx);
  }
  const statements: Knex.QueryBuilder[] = [];
  const history = [...rows.values()].map(({ address, tx }) => ({
    address,
    block_height: block.block_height,
    microblock_sequence: tx.microblock_sequence ?? ANCHORED_SEQUENCE,
    tx_index: tx.tx_index,
    tx_id: tx.tx_id,
    index_block_hash: block.index_block_hash,
  }));
  const counts = new Map<string, number>();
  for (const row of history) counts.set(row.address, (counts.get(row.address) ?? 0) + 1);
  for (let i = 0; i < history.length; i += 2_000) {
    statements.push(
      trx('address_txs')
        .insert(history.slice(i, i + 2_000))
        .onConflict()
        .ignore(),
    );
  }
  const totals = [...counts].map(([address, tx_count]) => ({ address, tx_count }));
  for (let i = 0; i < totals.length; i += 5_000) {
    statements.push(
      trx('address_tx_counts')
        .insert(totals.slice(i, i + 5_000))
        .onConflict('address')
        .merge({ tx_count: trx.raw('address_tx_counts.tx_count + excluded.tx_count') }),
    );
  }
  if (txs.length > 0) {
    statements.push(
      trx('mempool_txs')
        .whereIn(
          'tx_id',
          txs.map((t) => t.tx_id),
        )
        .whereNot('status', 'mined')
        .update({ status: 'mined' }),
    );
  }
  return statements;
}

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
