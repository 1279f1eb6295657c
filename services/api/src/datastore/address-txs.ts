import type { Knex } from 'knex';
import type { DbAddressTx } from '@bda/db';

/** The maintained number of canonical transactions touching `address` (0 when it has none). */
export async function getAddressTxCount(db: Knex, address: string): Promise<number> {
  const row = await db('address_tx_counts').select('tx_count').where('address', address).first();
  return row ? Number(row.tx_count) : 0;
}

/**
 * One page of an address's history, newest first: a backward range scan of the `address_txs` primary key
 * (address, block_height, microblock_sequence, tx_index).
 */
export async function getAddressTxPage(
  db: Knex,
  address: string,
  page: { limit: number; offset: number },
): Promise<DbAddressTx[]> {
  return db<DbAddressTx>('address_txs')
    .select('address', 'block_height', 'microblock_sequence', 'tx_index', 'tx_id', 'index_block_hash')
    .where('address', address)
    .orderBy([
      { column: 'block_height', order: 'desc' },
      { column: 'microblock_sequence', order: 'desc' },
      { column: 'tx_index', order: 'desc' },
    ])
    .limit(page.limit)
    .offset(page.offset);
}
