import type { Knex } from 'knex';
import { addressTxsRenumberSql, type DbAddressTx } from '@bda/db';
import { PG_TYPE } from '../binary-array';
import { arrayParameter, runPrepared } from '../write-statements';
import { addCanonicalAccountBlocks, removeAccountBlocks } from '../accounts';
import { addCanonicalChainBlocks, removeChainBlocks } from '../chain';
import { addCanonicalPoxBlocks, removePoxBlocks } from '../pox';

/** Microblock sequence used for anchored transactions in the per-address ordering (sorts after microblock txs). */
export const ANCHORED_SEQUENCE = 2147483647;

/**
 * The events whose parties enter an address's history: STX transfers, mints and burns, as in the reference API's
 * `/extended/v1/address/{principal}/transactions` (its `principal_stx_txs`). Token (FT/NFT) events and STX locks name
 * no one there: existing clients see the same `total` and the same pages (ADR 0016).
 */
const HISTORY_EVENT_TYPES = ['stx_transfer_event', 'stx_mint_event', 'stx_burn_event'] as const;
const HISTORY_EVENT_TYPE_SET: ReadonlySet<string> = new Set(HISTORY_EVENT_TYPES);
const HISTORY_EVENT_TYPES_SQL = HISTORY_EVENT_TYPES.map((t) => `'${t}'`).join(', ');

/**
 * Everything a block entering the canonical chain changes in the read models, in one statement:
 * per-address history and totals, and its transactions leaving the mempool.
 */
export async function addCanonicalBlockReadModels(trx: Knex.Transaction, blockHashes: string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  // A prepared statement: planning this one costs more than running it for a block or two.
  const [added] = await runPrepared<Renumbering>(trx, ADD_READ_MODELS_SQL, [blockHashes]);
  // Its history rows went in unnumbered: these blocks may lie under canonical ones (a late block filling a gap).
  await renumberAddressTxs(trx, added);
  await addCanonicalAccountBlocks(trx, blockHashes);
  await addCanonicalChainBlocks(trx, blockHashes);
  await addCanonicalPoxBlocks(trx, blockHashes);
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
            LATERAL (VALUES (e.sender), (e.recipient)) AS p(address)
       WHERE e.index_block_hash = ANY(:hashes) AND e.type IN (${HISTORY_EVENT_TYPES_SQL}) AND e.committed
         AND tx.status = 'success' AND p.address IS NOT NULL
     ),
     inserted AS (
       INSERT INTO address_txs (address, block_height, microblock_sequence, tx_index, tx_id, index_block_hash)
       SELECT address, block_height, mseq, tx_index, tx_id, index_block_hash FROM parties
       ON CONFLICT DO NOTHING
       RETURNING address, block_height
     )`;

const INSERT_COUNTS = `INSERT INTO address_tx_counts (address, tx_count)
     SELECT address, count(*) FROM inserted GROUP BY address
     ON CONFLICT (address) DO UPDATE SET tx_count = address_tx_counts.tx_count + excluded.tx_count`;

const MARK_MINED = `UPDATE mempool_txs m SET status = 'mined'
     FROM txs t WHERE t.index_block_hash = ANY(:hashes) AND t.tx_id = m.tx_id AND m.status <> 'mined'`;

/** Each address whose history rows a statement wrote or deleted, and the lowest height of those rows. */
interface Renumbering {
  addresses: string[];
  heights: number[];
}

/** The addresses and lowest heights of the rows of a CTE `changed (address, block_height)`, as a `Renumbering`. */
const SELECT_RENUMBERING = `SELECT coalesce(array_agg(address), '{}') AS addresses, coalesce(array_agg(height), '{}') AS heights
     FROM (SELECT address, min(block_height) AS height FROM changed GROUP BY address) a`;

const ADD_READ_MODELS_SQL = `WITH ${ADDRESS_TXS_CTES},
     counted AS (${INSERT_COUNTS} RETURNING 1),
     mined AS (${MARK_MINED} RETURNING 1),
     changed AS (SELECT address, block_height FROM inserted)
     ${SELECT_RENUMBERING}`.replace(/:hashes/g, '$1::text[]');

/**
 * Migration 087's `seq` of the history rows of each address of `changed` from the height given for it up (the
 * rows a block joining or leaving under canonical blocks moves). A custom plan (not prepared): reorgs are rare, and
 * the join to the table is planned for the addresses at hand.
 */
async function renumberAddressTxs(trx: Knex.Transaction, changed: Renumbering | undefined): Promise<void> {
  if (!changed || changed.addresses.length === 0) return;
  await trx.raw(RENUMBER_ADDRESS_TXS_SQL, [changed.addresses, changed.heights]);
}

const RENUMBER_ADDRESS_TXS_SQL = addressTxsRenumberSql().replace(/\$[12]/g, '?');

/** Removes the history rows of blocks leaving the canonical chain, their share of the totals, and renumbers the rest. */
export async function removeAddressTxs(trx: Knex.Transaction, blockHashes: string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const { rows } = (await trx.raw(
    `WITH changed AS (
       DELETE FROM address_txs WHERE index_block_hash = ANY(:hashes) RETURNING address, block_height
     ),
     counted AS (
       UPDATE address_tx_counts c SET tx_count = c.tx_count - d.n
       FROM (SELECT address, count(*) AS n FROM changed GROUP BY address) d
       WHERE c.address = d.address
       RETURNING 1
     )
     ${SELECT_RENUMBERING}`,
    { hashes: blockHashes },
  )) as { rows: Renumbering[] };
  await renumberAddressTxs(trx, rows[0]);
  await removeAccountBlocks(trx, blockHashes);
  await removeChainBlocks(trx, blockHashes);
  await removePoxBlocks(trx, blockHashes);
}

/**
 * Transactions of orphaned blocks that no canonical block includes go back to the mempool (a node
 * would re-mine them), except coinbase/tenure-change and burnchain operations, which cannot be.
 */
export async function restoreOrphanedToMempool(trx: Knex.Transaction, blockHashes: string[], receiptTime: string): Promise<void> {
  if (blockHashes.length === 0) return;
  await trx.raw(
    `INSERT INTO mempool_txs (tx_id, raw_tx, type_id, sender_address, sponsor_address, nonce, sponsor_nonce, fee_rate, payload,
                              post_conditions, post_condition_mode, anchor_mode, contract_id, status, receipt_time)
     SELECT DISTINCT ON (t.tx_id) t.tx_id, t.raw_tx, t.type_id, t.sender_address, t.sponsor_address, t.nonce, t.sponsor_nonce,
            t.fee_rate, t.payload, t.post_conditions, t.post_condition_mode, t.anchor_mode, t.contract_id, 'pending', :receiptTime
     FROM txs t
     WHERE t.index_block_hash = ANY(:hashes)
       AND t.type_id NOT IN ('coinbase', 'tenure_change', 'poison_microblock')
       AND t.raw_tx <> '\\x00'::bytea
       AND NOT EXISTS (SELECT 1 FROM txs c WHERE c.tx_id = t.tx_id AND c.canonical)
     ON CONFLICT (tx_id) DO UPDATE SET status = 'pending', replaced_by_tx_id = NULL WHERE mempool_txs.status = 'mined'`,
    { hashes: blockHashes, receiptTime },
  );
}

interface TxParties {
  tx_id: string;
  tx_index: number;
  microblock_sequence: number | null;
  sender_address: string | null;
  sponsor_address: string | null;
  contract_id: string | null;
  /** `recipient_address` of a token transfer's payload. */
  recipient: string | null;
  /** Execution status: only a successful transaction's events name parties (reference/node-events.md). */
  status: string;
}

interface EventParties {
  tx_id: string;
  /** The node's event type (`stx_transfer_event`, …): only `HISTORY_EVENT_TYPES` name parties. */
  type: string;
  committed: boolean;
  sender: string | null;
  recipient: string | null;
}

/**
 * The `address_txs` rows of one block, from its rows in memory: exactly what `ADDRESS_TXS_CTES` selects from the
 * stored block (each principal a transaction names — sender, sponsor, token-transfer recipient, contract — and the
 * sender and recipient of its committed STX transfers, mints and burns if it succeeded, once per principal and
 * transaction). The e2e suite checks the table against
 * that SQL definition after every fixture.
 */
export function addressTxRows(
  block: { index_block_hash: string; block_height: number },
  txs: readonly TxParties[],
  events: readonly EventParties[],
): DbAddressTx[] {
  const byId = new Map<string, TxParties>();
  for (const tx of txs) if (!byId.has(tx.tx_id)) byId.set(tx.tx_id, tx);
  const rows: DbAddressTx[] = [];
  const seen = new Set<string>();
  // The table's key within the block: a malformed block that repeats a position must not give two rows for it.
  const positions = new Set<string>();
  const add = (address: string | null, tx: TxParties) => {
    if (address === null) return;
    const key = `${address}\u0000${tx.tx_id}`;
    const position = `${address}\u0000${tx.microblock_sequence ?? ANCHORED_SEQUENCE}\u0000${tx.tx_index}`;
    if (seen.has(key) || positions.has(position)) return;
    seen.add(key);
    positions.add(position);
    rows.push({
      address,
      block_height: block.block_height,
      microblock_sequence: tx.microblock_sequence ?? ANCHORED_SEQUENCE,
      tx_index: tx.tx_index,
      tx_id: tx.tx_id,
      index_block_hash: block.index_block_hash,
    });
  };
  for (const tx of txs) {
    add(tx.sender_address, tx);
    add(tx.sponsor_address, tx);
    add(tx.recipient, tx);
    add(tx.contract_id, tx);
  }
  for (const ev of events) {
    const tx = byId.get(ev.tx_id);
    if (!tx || !ev.committed || tx.status !== 'success' || !HISTORY_EVENT_TYPE_SET.has(ev.type)) continue;
    add(ev.sender, tx);
    add(ev.recipient, tx);
  }
  return rows;
}

/**
 * The history rows, their share of the totals, and mined mempool entries, in one prepared statement. The insert has
 * no ON CONFLICT clause (a speculative insert costs about a quarter more): these rows belong to blocks that each
 * extended the canonical tip, so their heights are above every canonical block's, and only canonical blocks have
 * history rows; within a block, `addressTxRows` gives each key once. A row that still collided would fail the batch,
 * and the record-by-record retry would dead-letter that block rather than drop the row unseen. For the same reason
 * each row is numbered as it is written (migration 087's `seq`): every row of its address already stored is below it,
 * so its place is the address's highest `seq` (one backward probe of `(address, seq)` per address) plus its place
 * among the address's rows of the batch.
 */
const WRITE_READ_MODEL_ROWS_SQL = `WITH fresh AS (
       SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::integer[], $5::text[], $6::text[])
         AS f(address, block_height, microblock_sequence, tx_index, tx_id, index_block_hash)
     ),
     base AS (
       SELECT a.address, coalesce((SELECT max(s.seq) FROM address_txs s WHERE s.address = a.address), 0) AS base
       FROM (SELECT DISTINCT address FROM fresh) a
     ),
     inserted AS (
       INSERT INTO address_txs (address, block_height, microblock_sequence, tx_index, tx_id, index_block_hash, seq)
       SELECT f.address, f.block_height, f.microblock_sequence, f.tx_index, f.tx_id, f.index_block_hash,
              b.base + row_number() OVER (PARTITION BY f.address ORDER BY f.block_height, f.microblock_sequence, f.tx_index)
       FROM fresh f JOIN base b ON b.address = f.address
       RETURNING address
     ),
     counted AS (${INSERT_COUNTS} RETURNING 1),
     mined AS (UPDATE mempool_txs m SET status = 'mined' WHERE m.tx_id = ANY($7::text[]) AND m.status <> 'mined' RETURNING 1)
     SELECT (SELECT count(*) FROM counted) AS counted, (SELECT count(*) FROM mined) AS mined`;

/**
 * Read-model rows of the blocks that extended the canonical tip in the current batch, computed from each block in
 * memory and written by one statement: flushed before anything that reads or rewrites those read models (a reorg)
 * and before the batch's position commits. On the record-by-record path the batch's rows are flushed after every
 * record and dropped (`reset`) when one fails, so a rolled-back block never leaves rows behind.
 */
export class DeferredReadModels {
  private rows: DbAddressTx[] = [];
  private txIds: string[] = [];
  /** Blocks whose account read models (ADR 0024) are still to be computed, in the order they extended the tip. */
  private blocks: string[] = [];

  add(rows: readonly DbAddressTx[], txIds: readonly string[], indexBlockHash?: string): void {
    for (const r of rows) this.rows.push(r);
    for (const id of txIds) this.txIds.push(id);
    if (indexBlockHash !== undefined) this.blocks.push(indexBlockHash);
  }

  reset(): void {
    this.rows = [];
    this.txIds = [];
    this.blocks = [];
  }

  async flush(trx: Knex.Transaction): Promise<void> {
    if (this.rows.length === 0 && this.txIds.length === 0 && this.blocks.length === 0) return;
    const { rows, txIds, blocks } = this;
    this.reset();
    await addCanonicalAccountBlocks(trx, blocks);
    await addCanonicalChainBlocks(trx, blocks);
    await addCanonicalPoxBlocks(trx, blocks);
    const column = <K extends keyof DbAddressTx>(k: K, oid: number) =>
      arrayParameter(
        rows.map((r) => r[k]),
        oid,
      );
    await runPrepared(trx, WRITE_READ_MODEL_ROWS_SQL, [
      column('address', PG_TYPE.text),
      column('block_height', PG_TYPE.int4),
      column('microblock_sequence', PG_TYPE.int4),
      column('tx_index', PG_TYPE.int4),
      column('tx_id', PG_TYPE.text),
      column('index_block_hash', PG_TYPE.text),
      arrayParameter(txIds, PG_TYPE.text),
    ]);
  }
}
