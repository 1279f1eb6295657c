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
 *
 * The offset is applied to the key columns alone, which the primary key holds: PostgreSQL skips the first `offset`
 * entries in the index (an index-only scan once vacuum has marked the pages all-visible) and reads table rows for the
 * page only. Selecting every column in the one query read a table row for every skipped entry too: at offset 50,000
 * of one address, about 95 ms of CPU a request (`bench/api/chain-reads.ts`).
 */
export async function getAddressTxPage(
  db: Knex,
  address: string,
  page: { limit: number; offset: number },
  range: HeightRange = { kind: 'all' },
): Promise<DbAddressTx[]> {
  const keys = db('address_txs').select('block_height', 'microblock_sequence', 'tx_index').where('address', address);
  if (range.kind === 'at') keys.andWhere('block_height', range.height);
  if (range.kind === 'until') keys.andWhere('block_height', '<=', range.height);
  keys
    .orderBy([...NEWEST_FIRST])
    .limit(page.limit)
    .offset(page.offset);
  return db<DbAddressTx>('address_txs as a')
    .select('a.address', 'a.block_height', 'a.microblock_sequence', 'a.tx_index', 'a.tx_id', 'a.index_block_hash')
    .join(keys.as('k'), (on) =>
      on
        .on('a.block_height', 'k.block_height')
        .andOn('a.microblock_sequence', 'k.microblock_sequence')
        .andOn('a.tx_index', 'k.tx_index'),
    )
    .where('a.address', address)
    .orderBy(NEWEST_FIRST.map(({ column, order }) => ({ column: `a.${column}`, order })));
}

const NEWEST_FIRST = [
  { column: 'block_height', order: 'desc' },
  { column: 'microblock_sequence', order: 'desc' },
  { column: 'tx_index', order: 'desc' },
] as const;
