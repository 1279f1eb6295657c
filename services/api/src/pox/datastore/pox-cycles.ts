import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';

/** A row of `pox_cycles`: a reward cycle whose reward set a canonical block carried. */
export interface DbPoxCycle {
  cycle_number: number;
  block_height: number;
  index_block_hash: string;
  total_weight: number;
  total_stacked_amount: string;
  total_signers: number;
}

/** A signer of a cycle (`pox_cycle_signers`) with the numbers of stackers behind it. */
export interface DbPoxCycleSigner {
  signing_key: string;
  signer_address: string;
  weight: number;
  stacked_amount: string;
  weight_percent: number;
  stacked_amount_percent: number;
  solo_stacker_count: number;
  pooled_stacker_count: number;
}

/** A stacker behind a signer in a cycle. */
export interface DbPoxCycleStacker {
  stacker: string;
  locked: string;
  pox_addr: string | null;
  stacker_type: 'solo' | 'pooled';
}

const CYCLE_COLUMNS =
  'c.cycle_number, c.block_height, c.index_block_hash, c.total_weight, c.total_stacked_amount, c.total_signers';

/** A page of cycles, newest first (the primary key), and how many there are (one row per cycle: a small table). */
const CYCLE_PAGE = statement(
  `SELECT ${TIP_SELECT}, (SELECT count(*) FROM pox_cycles) AS total, p.*
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${CYCLE_COLUMNS} FROM pox_cycles c ORDER BY c.cycle_number DESC LIMIT $1::int8 OFFSET $2::int8
   ) p ON true`,
);

const CYCLE = statement(
  `SELECT ${TIP_SELECT}, p.*
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (SELECT ${CYCLE_COLUMNS} FROM pox_cycles c WHERE c.cycle_number = $1::int) p ON true`,
);

/**
 * The stackers behind signer key `k` in cycle `n` (the reference API's rule, from the pox-4 events): a solo stacker
 * is one whose newest `stack-stx`, `stack-increase` or `stack-extend` covering `n` (start cycle ≤ n < end cycle) names
 * `k`; a pooled stacker is one whose newest `delegate-stack-*` covering `n` names a pool operator whose newest
 * aggregation commit for exactly `n` names `k`. (The reference matches a misspelt `stacks-increase`, so a stack-increase
 * never counts there; here it does, as the newest state of the stacker.) Each candidate is found through the events
 * that name `k` (`pox_events_signer_key`) or the operators (`pox_events_delegator`), then its newest covering event
 * through `pox_events_stacker`: the cost grows with the signer's stackers, not with the table.
 */
function stackersOf(n: string, k: string): string {
  return `solo_candidates AS (
     SELECT DISTINCT e.stacker FROM pox_events e
     WHERE e.signer_key = ${k} AND e.start_cycle_id <= ${n} AND e.end_cycle_id > ${n} AND e.pox_version = 4
       AND e.name IN ('stack-stx', 'stack-increase', 'stack-extend')
   ),
   solo AS (
     SELECT lt.stacker, lt.locked, lt.pox_addr, 'solo'::text AS stacker_type
     FROM solo_candidates sc
     CROSS JOIN LATERAL (
       SELECT e.stacker, e.locked, e.pox_addr, e.signer_key FROM pox_events e
       WHERE e.pox_version = 4 AND e.stacker = sc.stacker AND e.name IN ('stack-stx', 'stack-increase', 'stack-extend')
         AND e.start_cycle_id <= ${n} AND e.end_cycle_id > ${n}
       ORDER BY e.block_height DESC, e.tx_index DESC, e.event_index DESC LIMIT 1
     ) lt
     WHERE lt.signer_key = ${k}
   ),
   operator_candidates AS (
     SELECT DISTINCT e.stacker FROM pox_events e
     WHERE e.signer_key = ${k} AND e.start_cycle_id = ${n} AND e.end_cycle_id = ${n} + 1 AND e.pox_version = 4
       AND e.name IN ('stack-aggregation-commit', 'stack-aggregation-commit-indexed')
   ),
   operators AS (
     SELECT oc.stacker FROM operator_candidates oc
     CROSS JOIN LATERAL (
       SELECT e.signer_key FROM pox_events e
       WHERE e.pox_version = 4 AND e.stacker = oc.stacker
         AND e.name IN ('stack-aggregation-commit', 'stack-aggregation-commit-indexed')
         AND e.start_cycle_id = ${n} AND e.end_cycle_id = ${n} + 1
       ORDER BY e.block_height DESC, e.tx_index DESC, e.event_index DESC LIMIT 1
     ) lc
     WHERE lc.signer_key = ${k}
   ),
   pooled_candidates AS (
     SELECT DISTINCT e.stacker FROM pox_events e JOIN operators o ON e.delegator = o.stacker
     WHERE e.start_cycle_id <= ${n} AND e.end_cycle_id > ${n} AND e.pox_version = 4
       AND e.name IN ('delegate-stack-stx', 'delegate-stack-increase', 'delegate-stack-extend')
   ),
   pooled AS (
     SELECT lt.stacker, lt.locked, lt.pox_addr, 'pooled'::text AS stacker_type
     FROM pooled_candidates pc
     CROSS JOIN LATERAL (
       SELECT e.stacker, e.locked, e.pox_addr, e.delegator FROM pox_events e
       WHERE e.pox_version = 4 AND e.stacker = pc.stacker
         AND e.name IN ('delegate-stack-stx', 'delegate-stack-increase', 'delegate-stack-extend')
         AND e.start_cycle_id <= ${n} AND e.end_cycle_id > ${n}
       ORDER BY e.block_height DESC, e.tx_index DESC, e.event_index DESC LIMIT 1
     ) lt
     WHERE lt.delegator IN (SELECT stacker FROM operators)
   ),
   stackers AS (SELECT * FROM solo UNION ALL SELECT * FROM pooled)`;
}

const SIGNER_COLUMNS = 's.signing_key, s.signer_address, s.weight, s.stacked_amount, s.weight_percent, s.stacked_amount_percent';

/** A page of a cycle's signers, heaviest first (`pox_cycle_signers_order`), each with its stacker counts. */
const SIGNER_PAGE = statement(
  `SELECT ${TIP_SELECT}, c.total_signers, c.cycle_number AS found_cycle, p.*
   FROM ${FROM_TIP}
   LEFT JOIN pox_cycles c ON c.cycle_number = $1::int
   LEFT JOIN LATERAL (
     SELECT ${SIGNER_COLUMNS}, n.solo_stacker_count, n.pooled_stacker_count
     FROM (
       SELECT * FROM pox_cycle_signers s WHERE s.cycle_number = $1::int
       ORDER BY s.weight DESC, s.stacked_amount DESC, s.signing_key LIMIT $2::int8 OFFSET $3::int8
     ) s
     CROSS JOIN LATERAL (
       WITH ${stackersOf('s.cycle_number', 's.signing_key')}
       SELECT count(*) FILTER (WHERE stacker_type = 'solo')::int AS solo_stacker_count,
              count(*) FILTER (WHERE stacker_type = 'pooled')::int AS pooled_stacker_count
       FROM stackers
     ) n
     ORDER BY s.weight DESC, s.stacked_amount DESC, s.signing_key
   ) p ON true`,
);

const SIGNER = statement(
  `SELECT ${TIP_SELECT}, c.cycle_number AS found_cycle, p.*
   FROM ${FROM_TIP}
   LEFT JOIN pox_cycles c ON c.cycle_number = $1::int
   LEFT JOIN LATERAL (
     SELECT ${SIGNER_COLUMNS}, n.solo_stacker_count, n.pooled_stacker_count
     FROM pox_cycle_signers s
     CROSS JOIN LATERAL (
       WITH ${stackersOf('s.cycle_number', 's.signing_key')}
       SELECT count(*) FILTER (WHERE stacker_type = 'solo')::int AS solo_stacker_count,
              count(*) FILTER (WHERE stacker_type = 'pooled')::int AS pooled_stacker_count
       FROM stackers
     ) n
     WHERE s.cycle_number = $1::int AND s.signing_key = $2::text
   ) p ON true`,
);

/** A page of a signer's stackers in a cycle, the most locked first, with their number. */
const STACKER_PAGE = statement(
  `WITH ${stackersOf('$1::int', '$2::text')}
   SELECT ${TIP_SELECT}, c.cycle_number AS found_cycle, s.signing_key AS found_signer,
          (SELECT count(*) FROM stackers) AS total, p.*
   FROM ${FROM_TIP}
   LEFT JOIN pox_cycles c ON c.cycle_number = $1::int
   LEFT JOIN pox_cycle_signers s ON s.cycle_number = $1::int AND s.signing_key = $2::text
   LEFT JOIN LATERAL (
     SELECT st.stacker, st.locked, st.pox_addr, st.stacker_type FROM stackers st
     ORDER BY st.locked DESC, st.stacker LIMIT $3::int8 OFFSET $4::int8
   ) p ON true`,
);

type Found = { found_cycle: number | null; found_signer?: string | null };

export async function getPoxCyclePage(
  db: Knex,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; total: number; rows: DbPoxCycle[] }> {
  const rows = await query<TipColumns & { total: string }>(db, CYCLE_PAGE, [page.limit, page.offset]);
  return { tip: tipOf(rows[0]!), total: Number(rows[0]!.total), rows: rowsCarrying<DbPoxCycle>(rows, 'index_block_hash') };
}

export async function getPoxCycle(db: Knex, cycle: number): Promise<{ tip: DbChainTip | null; cycle: DbPoxCycle | null }> {
  const rows = await query<TipColumns>(db, CYCLE, [cycle]);
  return { tip: tipOf(rows[0]!), cycle: rowsCarrying<DbPoxCycle>(rows, 'index_block_hash')[0] ?? null };
}

export async function getPoxCycleSigners(
  db: Knex,
  cycle: number,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; found: boolean; total: number; rows: DbPoxCycleSigner[] }> {
  const rows = await query<TipColumns & Found & { total_signers: number | null }>(db, SIGNER_PAGE, [
    cycle,
    page.limit,
    page.offset,
  ]);
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    found: first.found_cycle !== null,
    total: first.total_signers ?? 0,
    rows: rowsCarrying<DbPoxCycleSigner>(rows, 'signing_key'),
  };
}

export async function getPoxCycleSigner(
  db: Knex,
  cycle: number,
  signingKey: string,
): Promise<{ tip: DbChainTip | null; found: boolean; signer: DbPoxCycleSigner | null }> {
  const rows = await query<TipColumns & Found>(db, SIGNER, [cycle, signingKey]);
  return {
    tip: tipOf(rows[0]!),
    found: rows[0]!.found_cycle !== null,
    signer: rowsCarrying<DbPoxCycleSigner>(rows, 'signing_key')[0] ?? null,
  };
}

export async function getPoxCycleSignerStackers(
  db: Knex,
  cycle: number,
  signingKey: string,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; cycleFound: boolean; signerFound: boolean; total: number; rows: DbPoxCycleStacker[] }> {
  const rows = await query<TipColumns & Found & { total: string }>(db, STACKER_PAGE, [
    cycle,
    signingKey,
    page.limit,
    page.offset,
  ]);
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    cycleFound: first.found_cycle !== null,
    signerFound: first.found_signer != null,
    total: Number(first.total),
    rows: rowsCarrying<DbPoxCycleStacker>(rows, 'stacker'),
  };
}
