import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
import { blockSelect, type DbBlockRow } from './blocks';

/** A block's time as the reference uses it: its own (Nakamoto), else its burn block's; `blocks_canonical_block_time`. */
const EFF = 'coalesce(nullif(x.block_time, 0), x.burn_block_time)';

/** The newest canonical block at or before a time (`$1`, Unix seconds), the highest of equal times. */
const BLOCK_AT_TIME = statement(
  `SELECT ${TIP_SELECT}, ${blockSelect('b')}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${blockSelect('x')} FROM blocks x WHERE x.canonical AND ${EFF} <= $1::int8
     ORDER BY ${EFF} DESC, x.block_height DESC LIMIT 1
   ) b ON true`,
);

export async function getBlockAtTime(db: Knex, time: number): Promise<{ tip: DbChainTip | null; block: DbBlockRow | null }> {
  const [row] = await query<TipColumns & { index_block_hash: string | null }>(db, BLOCK_AT_TIME, [time]);
  return { tip: tipOf(row!), block: rowsCarrying<DbBlockRow>([row!], 'index_block_hash')[0] ?? null };
}

export interface DbAverageTimeRow {
  window_name: 'last_1h' | 'last_24h' | 'last_7d' | 'last_30d';
  tip_height: number | null;
  tip_time: string | null;
  first_height: number | null;
  first_time: string | null;
  prev_time: string | null;
}

/**
 * For each window (the last hour, day, week, 30 days before now): the first canonical block in it (by time,
 * `blocks_canonical_block_time`), the block before it and the tip (`blocks_canonical_height`). The mean gap between
 * consecutive blocks in the window is then the span from the block before the first to the tip over the number of
 * blocks in the window: no scan of the window's blocks (block times grow with height, so the window is a height range).
 */
const AVERAGE_TIMES = statement(
  `SELECT w.k AS window_name, tip.block_height AS tip_height, tt.t AS tip_time, f.block_height AS first_height, f.t AS first_time,
          p.t AS prev_time
   FROM (VALUES ('last_1h', 3600), ('last_24h', 86400), ('last_7d', 604800), ('last_30d', 2592000)) w(k, secs)
   LEFT JOIN chain_tip tip ON true
   LEFT JOIN LATERAL (
     SELECT x.block_height, ${EFF} AS t FROM blocks x
     WHERE x.canonical AND ${EFF} >= floor(extract(epoch FROM now()))::int8 - w.secs
     ORDER BY ${EFF}, x.block_height LIMIT 1
   ) f ON true
   LEFT JOIN LATERAL (SELECT ${EFF} AS t FROM blocks x WHERE x.canonical AND x.block_height = f.block_height - 1) p ON true
   LEFT JOIN LATERAL (SELECT ${EFF} AS t FROM blocks x WHERE x.canonical AND x.block_height = tip.block_height) tt ON true`,
);

export async function getAverageTimeRows(db: Knex): Promise<DbAverageTimeRow[]> {
  return query<DbAverageTimeRow>(db, AVERAGE_TIMES, []);
}
