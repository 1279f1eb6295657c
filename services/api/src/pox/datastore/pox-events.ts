import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';

/** A row of `pox_events` (the indexer's decoded PoX `print` events of canonical blocks). */
export interface DbPoxEvent {
  block_height: number;
  tx_id: string;
  tx_index: number;
  event_index: number;
  name: string;
  stacker: string;
  locked: string;
  balance: string;
  burnchain_unlock_height: string;
  pox_addr: string | null;
  pox_addr_raw: string | null;
  data: Record<string, string | null>;
}

/** A pool member: the newest delegate-stx of a stacker to a pool, not revoked since. */
export interface DbPoolDelegation {
  stacker: string;
  pox_addr: string | null;
  amount_ustx: string;
  unlock_burn_height: string | null;
  block_height: number;
  tx_id: string;
}

const EVENT_COLUMNS =
  'e.block_height, e.tx_id, e.tx_index, e.event_index, e.name, e.stacker, e.locked, e.balance, e.burnchain_unlock_height, e.pox_addr, e.pox_addr_raw, e.data';
const NEWEST_FIRST = 'ORDER BY e.block_height DESC, e.tx_index DESC, e.event_index DESC';

/**
 * A page of one contract's events, newest first, at any offset for the same cost: `chain_pox_positions` (migration
 * 082; index `chain_pox_positions_start`) names the block holding position `$3` (from the newest) and how far into
 * it the page starts; the page is read from that block down `pox_events_order`, skipping fewer events than the block
 * holds.
 */
const EVENT_PAGE = statement(
  `SELECT ${TIP_SELECT}, p.*
   FROM ${FROM_TIP}
   CROSS JOIN LATERAL (
     SELECT coalesce((SELECT c.events_before + c.event_count FROM chain_pox_positions c
                      WHERE c.pox_version = $1::int2 ORDER BY c.events_before DESC LIMIT 1), 0) AS total
     OFFSET 0
   ) n
   LEFT JOIN LATERAL (
     SELECT c.block_height, c.events_before + c.event_count - 1 - w.at AS skip
     FROM (SELECT n.total - 1 - $3::int8 AS at) w
     JOIN chain_pox_positions c ON c.pox_version = $1::int2 AND c.events_before <= w.at
     WHERE w.at >= 0
     ORDER BY c.events_before DESC LIMIT 1
   ) start ON true
   LEFT JOIN LATERAL (
     SELECT ${EVENT_COLUMNS} FROM pox_events e WHERE e.pox_version = $1::int2 AND e.block_height <= start.block_height
     ${NEWEST_FIRST} LIMIT $2::int8 OFFSET start.skip
   ) p ON true
   ORDER BY p.block_height DESC, p.tx_index DESC, p.event_index DESC`,
);

/** A transaction's events of one contract (`pox_events_tx`), and whether the transaction is a canonical one. */
const TX_EVENTS = statement(
  `SELECT ${TIP_SELECT}, EXISTS (SELECT 1 FROM txs t WHERE t.tx_id = $2::text AND t.canonical) AS tx_found, p.*
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${EVENT_COLUMNS} FROM pox_events e WHERE e.pox_version = $1::int2 AND e.tx_id = $2::text ${NEWEST_FIRST}
   ) p ON true`,
);

/** A stacker's events of one contract, newest first (`pox_events_stacker`). */
const STACKER_EVENTS = statement(
  `SELECT ${TIP_SELECT}, p.*
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${EVENT_COLUMNS} FROM pox_events e WHERE e.pox_version = $1::int2 AND e.stacker = $2::text ${NEWEST_FIRST}
   ) p ON true`,
);

type EventRow = TipColumns & Partial<DbPoxEvent> & { tx_found?: boolean };

export async function getPoxEventPage(
  db: Knex,
  version: number,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; rows: DbPoxEvent[] }> {
  const rows = await query<EventRow>(db, EVENT_PAGE, [version, page.limit, page.offset]);
  return { tip: tipOf(rows[0]!), rows: rowsCarrying<DbPoxEvent>(rows, 'tx_id') };
}

export async function getPoxTxEvents(
  db: Knex,
  version: number,
  txId: string,
): Promise<{ tip: DbChainTip | null; found: boolean; rows: DbPoxEvent[] }> {
  const rows = await query<EventRow>(db, TX_EVENTS, [version, txId]);
  return { tip: tipOf(rows[0]!), found: rows[0]!.tx_found === true, rows: rowsCarrying<DbPoxEvent>(rows, 'tx_id') };
}

export async function getPoxStackerEvents(
  db: Knex,
  version: number,
  stacker: string,
): Promise<{ tip: DbChainTip | null; rows: DbPoxEvent[] }> {
  const rows = await query<EventRow>(db, STACKER_EVENTS, [version, stacker]);
  return { tip: tipOf(rows[0]!), rows: rowsCarrying<DbPoxEvent>(rows, 'tx_id') };
}

/**
 * A pool's members as the reference API lists them: of the pool's delegate-stx and revoke-delegate-stx events in
 * blocks after `$3` up to `$4` whose unlock height (if any) is above burn height `$5`, each stacker's newest, kept
 * when it is a delegate-stx; newest first, with their number (`pox_events_delegations`: the pool's events only).
 * `block_found` says whether a canonical block is at height `$4` (the tip's when null): the unlock heights are compared
 * with its burn height.
 */
const POOL_DELEGATIONS = statement(
  `WITH at AS (
     SELECT b.block_height, b.burn_block_height FROM blocks b
     WHERE b.canonical AND b.block_height = coalesce($4::int, (SELECT t.block_height FROM chain_tip t))
   ),
   newest AS (
     SELECT DISTINCT ON (e.stacker) e.stacker, e.name, e.pox_addr, e.amount_ustx, e.unlock_burn_height, e.block_height,
            e.tx_id, e.tx_index, e.event_index
     FROM pox_events e, at
     WHERE e.pox_version = $1::int2 AND e.delegate_to = $2::text AND e.name IN ('delegate-stx', 'revoke-delegate-stx')
       AND e.block_height > $3::int AND e.block_height <= at.block_height
       AND (e.unlock_burn_height > at.burn_block_height OR e.unlock_burn_height IS NULL)
     ORDER BY e.stacker, e.block_height DESC, e.tx_index DESC, e.event_index DESC
   ),
   members AS (SELECT * FROM newest WHERE name = 'delegate-stx')
   SELECT ${TIP_SELECT}, EXISTS (SELECT 1 FROM at) AS block_found, (SELECT count(*) FROM members) AS total, p.*
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT m.stacker, m.pox_addr, m.amount_ustx, m.unlock_burn_height, m.block_height, m.tx_id FROM members m
     ORDER BY m.block_height DESC, m.tx_index DESC, m.event_index DESC LIMIT $5::int8 OFFSET $6::int8
   ) p ON true`,
);

type DelegationRow = TipColumns & Partial<DbPoolDelegation> & { block_found: boolean; total: string };

export async function getPoolDelegations(
  db: Knex,
  args: { version: number; pool: string; afterBlock: number; height: number | null; limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; blockFound: boolean; total: number; rows: DbPoolDelegation[] }> {
  const rows = await query<DelegationRow>(db, POOL_DELEGATIONS, [
    args.version,
    args.pool,
    args.afterBlock,
    args.height,
    args.limit,
    args.offset,
  ]);
  return {
    tip: tipOf(rows[0]!),
    blockFound: rows[0]!.block_found,
    total: Number(rows[0]!.total),
    rows: rowsCarrying<DbPoolDelegation>(rows, 'tx_id'),
  };
}
