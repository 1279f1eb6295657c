import type { Knex } from 'knex';
import { keepMempoolTxJson } from '@bda/db';
import type { Logger } from 'pino';
import type { NodeDropMempoolTx } from './node-payloads';
import { normalizeHex } from './sanitize';
import { decodeRawTxColumns } from './tx-fields';
import { unnestInsert, WriteBatch } from '../write-statements';

interface MempoolRows {
  rows: Array<Record<string, unknown> & { tx_id: string }>;
  /** Entries that could not be decoded, each with its reason. */
  problems: string[];
}

/** Rows built ahead by `prepareNewMempoolTxs`, taken by `applyNewMempoolTxs`. */
const prepared = new WeakMap<string[], MempoolRows>();

/**
 * Decodes a `/new_mempool_tx` ahead of `applyNewMempoolTxs` (pure work, no database), so that the indexer can do it
 * while PostgreSQL runs the previous record's write.
 */
export function prepareNewMempoolTxs(rawTxs: string[], receivedAt: string): void {
  if (!prepared.has(rawTxs)) prepared.set(rawTxs, mempoolRows(rawTxs, receivedAt));
}

function mempoolRows(rawTxs: string[], receivedAt: string): MempoolRows {
  const problems: string[] = [];
  const rows = [];
  // A transaction the event names twice is one row (one INSERT … ON CONFLICT cannot touch a row twice).
  const seen = new Set<string>();
  for (const raw of rawTxs) {
    try {
      const decoded = decodeRawTxColumns(raw);
      if (seen.has(decoded.tx_id)) continue;
      seen.add(decoded.tx_id);
      rows.push({
        tx_id: decoded.tx_id,
        raw_tx: Buffer.from(raw.replace(/^0x/, ''), 'hex'),
        ...decoded.columns,
        receipt_time: receivedAt,
      });
    } catch (err) {
      problems.push(`${String(raw).slice(0, 24)}…: ${(err as Error).message}`);
    }
  }
  return { rows, problems };
}

/**
 * A transaction's mempool status as it is announced: mined when a canonical block already includes it (an
 * announcement can follow the block), else pending.
 */
const ANNOUNCED_STATUS = `CASE WHEN EXISTS (SELECT 1 FROM txs t WHERE t.tx_id = u."tx_id" AND t.canonical) THEN 'mined' ELSE 'pending' END`;

/**
 * What an announcement does to a transaction the mempool already has: a dropped one comes back (as pending, or as
 * mined when a canonical block has it), no longer replaced; a pending one that a canonical block has is mined;
 * anything else stays.
 */
const ANNOUNCED_AGAIN = `DO UPDATE SET status = excluded.status, replaced_by_tx_id = NULL
  WHERE mempool_txs.status LIKE 'dropped%' OR (mempool_txs.status = 'pending' AND excluded.status = 'mined')`;

/**
 * `/new_mempool_tx`: each raw transaction enters the mempool as pending, unless a canonical block
 * already mined it. A transaction that was dropped and is announced again is pending again. One
 * undecodable entry is skipped (and reported) without costing the others. One statement.
 */
export async function applyNewMempoolTxs(
  trx: Knex.Transaction,
  rawTxs: string[],
  receivedAt: string,
  logger: Logger,
): Promise<string[]> {
  const { rows, problems } = prepared.get(rawTxs) ?? mempoolRows(rawTxs, receivedAt);
  prepared.delete(rawTxs);
  if (problems.length) logger.warn({ problems }, 'undecodable mempool transactions skipped');
  if (rows.length === 0) return problems;
  // An unnest insert: one statement text for any number of rows, prepared once per connection. Through a
  // WriteBatch: the next record is prepared while it runs (see RecordApplier).
  const writes = new WriteBatch(trx);
  await writes.add(
    await unnestInsert(trx, 'mempool_txs', rows, {
      // The tip's height as it announced it: the ages of `/extended/v1/tx/mempool/stats`.
      computed: { status: ANNOUNCED_STATUS, receipt_block_height: '(SELECT block_height FROM chain_tip)' },
      onConflict: ['tx_id'],
      conflictAction: ANNOUNCED_AGAIN,
    }),
  );
  await writes.flush();
  // The list texts of those pending now (ADR 0041), rendered from the rows just written, in the same transaction.
  await keepMempoolTxJson(
    trx,
    rows.map((r) => r.tx_id),
  );
  return problems;
}

const DROP_REASONS: Record<string, string> = {
  ReplaceByFee: 'dropped_replace_by_fee',
  ReplaceAcrossFork: 'dropped_replace_across_fork',
  TooExpensive: 'dropped_too_expensive',
  StaleGarbageCollect: 'dropped_stale_garbage_collect',
  Problematic: 'dropped_problematic',
};

/**
 * `/drop_mempool_tx`: pending transactions leave the mempool with the node's reason. A reason not listed above is
 * stored as `dropped_unknown` (the api shows it as `dropped_stale_garbage_collect`, the reference API having no such
 * status).
 */
export async function applyDropMempoolTxs(trx: Knex.Transaction, body: NodeDropMempoolTx): Promise<void> {
  const ids = body.dropped_txids.map(normalizeHex);
  if (ids.length === 0) return;
  const status = DROP_REASONS[body.reason ?? ''] ?? 'dropped_unknown';
  // One array parameter, however many ids: a list of bind parameters stops at 65,535.
  await trx('mempool_txs')
    .whereRaw('tx_id = ANY(?::text[])', [ids])
    .andWhere('status', 'pending')
    .update({ status, replaced_by_tx_id: body.new_txid ? normalizeHex(body.new_txid) : null });
}
