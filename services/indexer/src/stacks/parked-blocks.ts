import type { Knex } from 'knex';
import { encodeEnvelope, TOPICS } from '@bda/bus';

/**
 * How much the parked set (blocks waiting for a parent that is not known yet, ADR 0002) may hold. Past either bound
 * the oldest parked blocks (by receive time) leave it for the dead letters (ADR 0019): a parent that never comes, or
 * a sender inventing blocks, cannot grow it without end.
 */
export interface ParkingBounds {
  /** Most parked blocks (`INDEXER_PARKED_MAX_BLOCKS`). */
  maxBlocks: number;
  /** Most bytes of parked block bodies in all (`INDEXER_PARKED_MAX_BYTES`). */
  maxBytes: number;
}

/** The defaults of `INDEXER_PARKED_MAX_BLOCKS` and `INDEXER_PARKED_MAX_BYTES`. */
export const DEFAULT_PARKING_BOUNDS: ParkingBounds = { maxBlocks: 1_000, maxBytes: 256 * 1024 * 1024 };

/** What the dead letters of dropped parked blocks say; `indexer_parked_dropped_stored` counts the rows. */
const PARKED_DROPPED_REASON = 'parked block dropped';

/**
 * The parked blocks beyond the bounds, oldest first: counted from the newest, a block is beyond them once it and the
 * blocks newer than it are more than `maxBlocks`, or their bodies more than `maxBytes` (`octet_length` reads the size
 * from the stored value's header; nothing is decompressed).
 */
const OVERFLOW_SQL = `SELECT index_block_hash, parent_index_block_hash, block_height, n, bytes FROM (
    SELECT index_block_hash, parent_index_block_hash, block_height, received_at,
      row_number() OVER newest_first AS n, sum(octet_length(body)) OVER newest_first AS bytes
    FROM parked_blocks
    WINDOW newest_first AS (ORDER BY received_at DESC, index_block_hash DESC ROWS UNBOUNDED PRECEDING)
  ) r
  WHERE n > ? OR bytes > ?
  ORDER BY received_at, index_block_hash`;

/**
 * Parks a block whose parent is unknown (ADR 0002), then drops the oldest parked blocks beyond `bounds` to the dead
 * letters. Each goes there as the envelope it came in (path `/new_block`, its receive time, its body), with a negative
 * position (its own bus position is not kept with a parked block; -1, -2, … in the order of dropping) and the reason
 * naming the block and the bound it broke, so an operator can replay it once its parent is there.
 */
export async function parkBlock(
  trx: Knex.Transaction,
  row: { index_block_hash: string; parent_index_block_hash: string; block_height: number; body: string; received_at: string },
  bounds: ParkingBounds,
): Promise<void> {
  await trx('parked_blocks').insert(row).onConflict('index_block_hash').ignore();
  const { rows: over } = await trx.raw<{
    rows: Array<{ index_block_hash: string; parent_index_block_hash: string; block_height: number; n: string; bytes: string }>;
  }>(OVERFLOW_SQL, [bounds.maxBlocks, bounds.maxBytes]);
  if (over.length === 0) return;
  const gone = await trx('parked_blocks')
    .whereIn(
      'index_block_hash',
      over.map((o) => o.index_block_hash),
    )
    .delete()
    .returning<Array<{ index_block_hash: string; body: string; received_at: string }>>([
      'index_block_hash',
      'body',
      'received_at',
    ]);
  const bodies = new Map(gone.map((g) => [g.index_block_hash, g]));
  const [lowestRow] = (await trx('dead_letters').where({ topic: TOPICS.stacksNodeEvents }).min({ lowest: 'position' })) as Array<{
    lowest: string | null;
  }>;
  const lowest = BigInt(lowestRow?.lowest ?? '0');
  let position = lowest < 0n ? lowest : 0n;
  for (const o of over) {
    const g = bodies.get(o.index_block_hash);
    if (!g) continue;
    position -= 1n;
    const bound =
      Number(o.n) > bounds.maxBlocks
        ? `more than ${bounds.maxBlocks} blocks parked`
        : `more than ${bounds.maxBytes} bytes parked`;
    await trx('dead_letters').insert({
      topic: TOPICS.stacksNodeEvents,
      position: position.toString(),
      path: '/new_block',
      reason:
        `${PARKED_DROPPED_REASON} (${bound}): ${o.index_block_hash} at height ${o.block_height} ` +
        `waited for its parent ${o.parent_index_block_hash}, which never arrived`,
      value: encodeEnvelope('/new_block', new Date(g.received_at), g.body),
    });
  }
}
