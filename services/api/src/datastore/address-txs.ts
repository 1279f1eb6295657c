import type { Knex } from 'knex';
import type { DbAddressTx } from '@bda/db';

/** Which part of an address's history: everything, one block height, or up to and including a height. */
export type HeightRange = { kind: 'all' } | { kind: 'at'; height: number } | { kind: 'until'; height: number };

/** The maintained number of canonical transactions touching `address` (0 when it has none). */
export async function getAddressTxCount(db: Knex, address: string): Promise<number> {
  const row = await db('address_tx_counts').select('tx_count').where('address', address).first();
  return row ? Number(row.tx_count) : 0;
}

/**
 * The number of an address's transactions within `range`. Everything: the maintained counter. One height: a count
 * over that height's slice of the primary key (the address's transactions in one block). Up to a height: the counter
 * less a count over the primary key above that height, the part newer than the requested point.
 */
export async function getAddressTxCountInRange(
  db: Knex,
  address: string,
  range: HeightRange,
  tipHeight: number,
): Promise<number> {
  if (range.kind === 'all' || (range.kind === 'until' && range.height >= tipHeight)) return getAddressTxCount(db, address);
  const q = db('address_txs').count<Array<{ n: string }>>({ n: '*' }).where('address', address);
  if (range.kind === 'at') {
    const [row] = await q.andWhere('block_height', range.height);
    return Number(row?.n ?? 0);
  }
  const [total, [above]] = await Promise.all([getAddressTxCount(db, address), q.andWhere('block_height', '>', range.height)]);
  return Math.max(0, total - Number(above?.n ?? 0));
}

/**
 * One page of an address's history, newest first: a backward range scan of the `address_txs` primary key
 * (address, block_height, microblock_sequence, tx_index).
 */
export async function getAddressTxPage(
  db: Knex,
  address: string,
  page: { limit: number; offset: number },
  range: HeightRange = { kind: 'all' },
): Promise<DbAddressTx[]> {
  const q = db<DbAddressTx>('address_txs')
    .select('address', 'block_height', 'microblock_sequence', 'tx_index', 'tx_id', 'index_block_hash')
    .where('address', address);
  if (range.kind === 'at') q.andWhere('block_height', range.height);
  if (range.kind === 'until') q.andWhere('block_height', '<=', range.height);
  return q
    .orderBy([
      { column: 'block_height', order: 'desc' },
      { column: 'microblock_sequence', order: 'desc' },
      { column: 'tx_index', order: 'desc' },
    ])
    .limit(page.limit)
    .offset(page.offset);
}
