import type { Knex } from 'knex';
import type { DbEvent, DbTx } from '@bda/db';

/**
 * A mined transaction as the api reads it: the `txs` columns it serves (not the raw bytes, ABI or burnchain op) plus
 * two facts of the including block's parent, joined by primary key.
 */
export type DbTxRow = Omit<DbTx, 'raw_tx' | 'contract_abi' | 'burnchain_op'> & {
  /** `block_hash` of the including block's parent (from `blocks`); null only if that row is missing. */
  parent_block_hash: string | null;
  /** Burn time of the parent block, Unix seconds; null for the first block or a missing parent row. */
  parent_burn_block_time: string | null;
};

const TX_COLUMNS = [
  'tx_id',
  'index_block_hash',
  'block_hash',
  'block_height',
  'burn_block_time',
  'block_time',
  'burn_block_height',
  'parent_index_block_hash',
  'tx_index',
  'type_id',
  'status',
  'raw_result',
  'vm_error',
  'sender_address',
  'sponsor_address',
  'sponsored',
  'nonce',
  'sponsor_nonce',
  'fee_rate',
  'anchor_mode',
  'post_condition_mode',
  'post_conditions',
  'payload',
  'contract_id',
  'execution_cost_read_count',
  'execution_cost_read_length',
  'execution_cost_runtime',
  'execution_cost_write_count',
  'execution_cost_write_length',
  'microblock_hash',
  'microblock_sequence',
  'microblock_parent_hash',
  'event_count',
  'canonical',
].map((c) => `t.${c}`);

function selectTxs(db: Knex) {
  return db('txs as t')
    .select(TX_COLUMNS)
    .select({ parent_block_hash: 'b.parent_block_hash', parent_burn_block_time: 'p.burn_block_time' })
    .leftJoin('blocks as b', 'b.index_block_hash', 't.index_block_hash')
    .leftJoin('blocks as p', 'p.index_block_hash', 't.parent_index_block_hash');
}

/** The canonical mined row of a transaction (index `txs_canonical_tx`), or null. */
export async function getCanonicalTx(db: Knex, txId: string): Promise<DbTxRow | null> {
  const row = (await selectTxs(db).where('t.tx_id', txId).andWhere('t.canonical', true).first()) as DbTxRow | undefined;
  return row ?? null;
}

/**
 * Canonical rows for the given (tx_id, index_block_hash) keys, by primary key, in the order of `keys`; keys whose
 * row is missing or no longer canonical are left out.
 */
export async function getCanonicalTxsByKeys(
  db: Knex,
  keys: Array<{ tx_id: string; index_block_hash: string }>,
): Promise<DbTxRow[]> {
  if (keys.length === 0) return [];
  const rows = (await selectTxs(db)
    .join(
      db.raw('unnest(?::text[], ?::text[]) as k(tx_id, index_block_hash)', [
        keys.map((k) => k.tx_id),
        keys.map((k) => k.index_block_hash),
      ]),
      (j) => j.on('k.tx_id', 't.tx_id').andOn('k.index_block_hash', 't.index_block_hash'),
    )
    .where('t.canonical', true)) as DbTxRow[];
  const byKey = new Map(rows.map((r) => [`${r.tx_id}/${r.index_block_hash}`, r]));
  return keys.flatMap((k) => byKey.get(`${k.tx_id}/${k.index_block_hash}`) ?? []);
}

/** One page of a mined transaction's canonical events in event order (index `events_tx`). */
export async function getTxEvents(
  db: Knex,
  txId: string,
  indexBlockHash: string,
  page: { limit: number; offset: number },
): Promise<DbEvent[]> {
  return db<DbEvent>('events')
    .select('*')
    .where({ tx_id: txId, index_block_hash: indexBlockHash, canonical: true })
    .orderBy('event_index', 'asc')
    .limit(page.limit)
    .offset(page.offset);
}
