import type { Knex } from 'knex';
import { query, statement } from './read-statement';

const DATA_EPOCH = statement('SELECT epoch FROM data_epoch');

/**
 * `data_epoch.epoch` (decimal; migration 113, ADR 0048): raised by every indexer transaction that fences. Read before
 * a route's own statements when the gateway asks for the epoch of an answer.
 */
export async function readDataEpoch(db: Knex): Promise<string> {
  const [row] = await query<{ epoch: string }>(db, DATA_EPOCH, []);
  if (!row) throw new Error('data_epoch has no row');
  return row.epoch;
}
