import type { Knex } from 'knex';
import { query, rowsCarrying, statement, type Statement } from '../../datastore/read-statement';

/** A canonical PoX reward (a `reward_recipients` entry of a canonical burn block) with its block's burn amount. */
export interface DbBurnchainRewardRow {
  burn_block_hash: string;
  burn_block_height: number;
  /** numeric as text */
  burn_amount: string;
  recipient: string;
  /** numeric as text */
  amount: string;
  reward_index: number;
}

/** A canonical reward slot holder (a `reward_slot_holders` entry of a canonical burn block). */
export interface DbRewardSlotHolderRow {
  burn_block_hash: string;
  burn_block_height: number;
  address: string;
  slot_index: number;
}

/**
 * A page of one address's (`$3`) canonical rewards, newest burn block first and, within one, highest position first
 * (the reference API's order): a walk of the partial index `burn_block_rewards_canonical_recipient` that skips the
 * offset (bounded by that address's rewards); each row's burn amount by primary key, in a LATERAL kept apart by
 * `OFFSET 0` (ADR 0017).
 */
function rewardPage(where: string): Statement {
  return statement(
    `SELECT r.burn_block_hash, r.burn_block_height, coalesce(b.burn_amount, 0)::text AS burn_amount, r.recipient,
            r.amount::text AS amount, r.reward_index
     FROM (
       SELECT x.burn_block_hash, x.burn_block_height, x.recipient, x.amount, x.reward_index FROM burn_block_rewards x
       WHERE x.canonical${where} ORDER BY x.burn_block_height DESC, x.reward_index DESC LIMIT $1 OFFSET $2
     ) r
     LEFT JOIN LATERAL (
       SELECT bb.burn_amount FROM burn_blocks bb WHERE bb.burn_block_hash = r.burn_block_hash OFFSET 0
     ) b ON true
     ORDER BY r.burn_block_height DESC, r.reward_index DESC`,
  );
}

/**
 * The burn block holding position `$2` (from the newest) of a burnchain list (`list` 'rewards' or 'slots') and how
 * many of its rows come before that position, from `chain_burnchain_positions` (migration 081; index
 * `chain_burnchain_positions_start`, its top row for the list's length): `start` has no row past the end.
 */
function positionOf(list: string): string {
  return `CROSS JOIN LATERAL (
       SELECT coalesce((SELECT p.rows_before + p.row_count FROM chain_burnchain_positions p
                        WHERE p.list = '${list}' ORDER BY p.rows_before DESC LIMIT 1), 0) AS total
       OFFSET 0
     ) n
     LEFT JOIN LATERAL (
       SELECT p.burn_block_height, p.rows_before + p.row_count - 1 - w.at AS skip
       FROM (SELECT n.total - 1 - $2::int8 AS at) w
       JOIN chain_burnchain_positions p ON p.list = '${list}' AND p.rows_before <= w.at
       WHERE w.at >= 0
       ORDER BY p.rows_before DESC LIMIT 1
     ) start ON true`;
}

/**
 * Every address's rewards at any offset for the same cost: from the burn block holding the offset (`positionOf`),
 * down `burn_block_rewards_canonical_order`, skipping fewer rows than that burn block holds.
 */
const REWARDS = statement(
  `SELECT r.burn_block_hash, r.burn_block_height, coalesce(b.burn_amount, 0)::text AS burn_amount, r.recipient,
          r.amount::text AS amount, r.reward_index
   FROM (SELECT 1) one
   ${positionOf('rewards')}
   JOIN LATERAL (
     SELECT x.burn_block_hash, x.burn_block_height, x.recipient, x.amount, x.reward_index FROM burn_block_rewards x
     WHERE x.canonical AND x.burn_block_height <= start.burn_block_height
     ORDER BY x.burn_block_height DESC, x.reward_index DESC LIMIT $1 OFFSET start.skip
   ) r ON true
   LEFT JOIN LATERAL (
     SELECT bb.burn_amount FROM burn_blocks bb WHERE bb.burn_block_hash = r.burn_block_hash OFFSET 0
   ) b ON true
   ORDER BY r.burn_block_height DESC, r.reward_index DESC`,
);
const REWARDS_OF = rewardPage(' AND x.recipient = $3');

export async function getBurnchainRewardPage(
  db: Knex,
  page: { limit: number; offset: number; recipient?: string },
): Promise<DbBurnchainRewardRow[]> {
  return page.recipient === undefined
    ? query<DbBurnchainRewardRow>(db, REWARDS, [page.limit, page.offset])
    : query<DbBurnchainRewardRow>(db, REWARDS_OF, [page.limit, page.offset, page.recipient]);
}

/**
 * A page of one address's canonical slot holders in the reference API's order (newest burn block, highest slot
 * first) with the `total` the indexer keeps (`chain_burnchain_totals`): always one row for the total, the page's rows
 * beside it. Index `burn_block_slot_holders_canonical_address`, skipping the offset (bounded by the address's slots).
 */
function slotHolderPage(where: string, totalKey: string): Statement {
  return statement(
    `SELECT coalesce((SELECT t.slot_count FROM chain_burnchain_totals t WHERE t.address = ${totalKey}), 0)::text AS total,
            s.burn_block_hash, s.burn_block_height, s.address, s.slot_index
     FROM (SELECT 1) one
     LEFT JOIN LATERAL (
       SELECT x.burn_block_hash, x.burn_block_height, x.address, x.slot_index FROM burn_block_slot_holders x
       WHERE x.canonical${where} ORDER BY x.burn_block_height DESC, x.slot_index DESC LIMIT $1 OFFSET $2
     ) s ON true
     ORDER BY s.burn_block_height DESC, s.slot_index DESC`,
  );
}

/** Every address's slot holders at any offset for the same cost, as `REWARDS` (`positionOf('slots')`). */
const SLOT_HOLDERS = statement(
  `SELECT n.total::text AS total, s.burn_block_hash, s.burn_block_height, s.address, s.slot_index
   FROM (SELECT 1) one
   ${positionOf('slots')}
   LEFT JOIN LATERAL (
     SELECT x.burn_block_hash, x.burn_block_height, x.address, x.slot_index FROM burn_block_slot_holders x
     WHERE x.canonical AND x.burn_block_height <= start.burn_block_height
     ORDER BY x.burn_block_height DESC, x.slot_index DESC LIMIT $1 OFFSET start.skip
   ) s ON true
   ORDER BY s.burn_block_height DESC, s.slot_index DESC`,
);
const SLOT_HOLDERS_OF = slotHolderPage(' AND x.address = $3', '$3');

export async function getRewardSlotHolderPage(
  db: Knex,
  page: { limit: number; offset: number; address?: string },
): Promise<{ total: number; rows: DbRewardSlotHolderRow[] }> {
  type Row = DbRewardSlotHolderRow & { total: string };
  const rows =
    page.address === undefined
      ? await query<Row>(db, SLOT_HOLDERS, [page.limit, page.offset])
      : await query<Row>(db, SLOT_HOLDERS_OF, [page.limit, page.offset, page.address]);
  return { total: Number(rows[0]?.total ?? 0), rows: rowsCarrying<DbRewardSlotHolderRow>(rows, 'burn_block_hash') };
}

/** The satoshis of an address's canonical rewards, as the indexer sums them (`chain_burnchain_totals`): one row. */
const REWARD_TOTAL = statement(
  `SELECT coalesce((SELECT t.reward_amount FROM chain_burnchain_totals t WHERE t.address = $1), 0)::text AS reward_amount`,
);

export async function getBurnchainRewardTotal(db: Knex, recipient: string): Promise<string> {
  const [row] = await query<{ reward_amount: string }>(db, REWARD_TOTAL, [recipient]);
  return row?.reward_amount ?? '0';
}
