import type { Knex } from 'knex';
import type { DbEvent } from '@bda/db';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';

/** A contract's canonical deploy transaction, as `/extended/v1/contract/{contract_id}` shows it. */
export interface DbSmartContract {
  tx_id: string;
  contract_id: string;
  block_height: number;
  /** The deploy payload (`source_code`, `clarity_version`). */
  payload: Record<string, unknown>;
  /** The ABI the node reported, null when it reported none. */
  contract_abi: unknown;
}

const DEPLOY_COLUMNS = 't.tx_id, t.contract_id, t.block_height, t.payload, t.contract_abi';

/** `$1` contract id: its canonical deploy, the one with an ABI first, then the newest (index `txs_contract_deploy`). */
const CONTRACT = statement(
  `SELECT ${DEPLOY_COLUMNS} FROM txs t
   WHERE t.contract_id = $1 AND t.type_id = 'smart_contract' AND t.canonical
   ORDER BY (t.contract_abi IS NOT NULL AND t.contract_abi <> 'null'::jsonb) DESC, t.block_height DESC LIMIT 1`,
);

export async function getSmartContract(db: Knex, contractId: string): Promise<DbSmartContract | null> {
  const [row] = await query<DbSmartContract>(db, CONTRACT, [contractId]);
  return row ?? null;
}

/**
 * `$1` the trait's functions (jsonb: name, access, argument types, outputs), `$2` limit, `$3` offset: the canonical
 * deploys whose ABI has all of them, newest first.
 */
const BY_TRAIT = statement(
  `SELECT ${DEPLOY_COLUMNS} FROM txs t
   WHERE t.type_id = 'smart_contract' AND t.canonical AND t.contract_abi->'functions' @> $1::jsonb
   ORDER BY t.block_height DESC, t.tx_index DESC LIMIT $2 OFFSET $3`,
);

export async function getSmartContractsByTrait(
  db: Knex,
  functions: unknown[],
  page: { limit: number; offset: number },
): Promise<DbSmartContract[]> {
  return query<DbSmartContract>(db, BY_TRAIT, [JSON.stringify(functions), page.limit, page.offset]);
}

/**
 * `$1` contract id, `$2` limit, `$3` offset: its committed canonical log events (`print`), newest first (index
 * `events_contract_log`).
 */
const LOGS = statement(
  `SELECT e.* FROM events e
   WHERE e.contract_identifier = $1 AND e.canonical AND e.type = 'contract_event' AND e.committed
   ORDER BY e.block_height DESC, e.event_index DESC LIMIT $2 OFFSET $3`,
);

export async function getContractLogs(db: Knex, contractId: string, page: { limit: number; offset: number }): Promise<DbEvent[]> {
  return rowsCarrying<DbEvent>(await query<DbEvent>(db, LOGS, [contractId, page.limit, page.offset]), 'tx_id');
}

/** The deploy status of a contract: mined (canonical) or pending in the mempool. */
export interface DbContractStatus {
  contract_id: string;
  tx_id: string;
  status: string;
  block_height: number | null;
}

/**
 * `$1` contract ids: for each, its newest canonical deploy, else its pending deploy of the lowest nonce in the
 * mempool, as the reference API looks them up.
 */
const STATUS = statement(
  `SELECT DISTINCT ON (contract_id) contract_id, tx_id, status, block_height FROM (
     SELECT t.contract_id, t.tx_id, t.status, t.block_height, 0 AS source, -t.block_height::bigint AS rank
     FROM txs t WHERE t.contract_id = ANY ($1::text[]) AND t.type_id = 'smart_contract' AND t.canonical
     UNION ALL
     SELECT m.contract_id, m.tx_id, m.status, NULL, 1, m.nonce
     FROM mempool_txs m WHERE m.contract_id = ANY ($1::text[]) AND m.type_id = 'smart_contract' AND m.status = 'pending'
   ) x
   ORDER BY contract_id, source, rank`,
);

export async function getContractStatuses(db: Knex, contractIds: string[]): Promise<DbContractStatus[]> {
  return query<DbContractStatus>(db, STATUS, [contractIds]);
}

const LOG_OF = (alias: string) =>
  `${alias}.contract_identifier = $1 AND ${alias}.canonical AND ${alias}.type = 'contract_event' AND ${alias}.committed`;

/** `<block height>:<microblock sequence>:<tx index>:<event index>` of an event row `x` (its transaction's sequence). */
const CURSOR_OF = (alias: string) => `(SELECT ${alias}.block_height || ':' || coalesce(tx.microblock_sequence, 2147483647) || ':'
     || ${alias}.tx_index || ':' || ${alias}.event_index
   FROM txs tx WHERE tx.tx_id = ${alias}.tx_id AND tx.index_block_hash = ${alias}.index_block_hash)`;

/**
 * `/extended/v2/smart-contracts/{contract_id}/logs` (`$1` contract, `$2` limit, `$3` offset from the cursor, `$4`/`$5`
 * the cursor's block height and event index, null without one): the page of its logs starting `offset` events below
 * the cursor (or the newest), newest first; their number; and the cursors of the page (`current`), of the newer page
 * (`next`: `limit` events above its first) and of the older one (`previous`: the first event below it), as the
 * reference API computes them.
 */
const LOG_PAGE = statement(
  `WITH start AS (
     SELECT e.block_height, e.event_index FROM events e
     WHERE ${LOG_OF('e')} AND ($4::integer IS NULL OR (e.block_height, e.event_index) <= ($4::integer, $5::integer))
     ORDER BY e.block_height DESC, e.event_index DESC OFFSET $3 LIMIT 1
   ),
   page AS (
     SELECT e.* FROM events e, start s
     WHERE ${LOG_OF('e')} AND (e.block_height, e.event_index) <= (s.block_height, s.event_index)
     ORDER BY e.block_height DESC, e.event_index DESC LIMIT $2
   ),
   top AS (SELECT * FROM page ORDER BY block_height DESC, event_index DESC LIMIT 1),
   newer AS (
     SELECT e.* FROM events e, top t
     WHERE ${LOG_OF('e')} AND (e.block_height, e.event_index) > (t.block_height, t.event_index)
     ORDER BY e.block_height, e.event_index OFFSET $2::integer - 1 LIMIT 1
   ),
   older AS (
     SELECT e.* FROM events e, top t
     WHERE ${LOG_OF('e')} AND (e.block_height, e.event_index) < (t.block_height, t.event_index)
     ORDER BY e.block_height DESC, e.event_index DESC OFFSET $2::integer - 1 LIMIT 1
   )
   SELECT (SELECT count(*) FROM events e WHERE ${LOG_OF('e')}) AS total,
          (SELECT ${CURSOR_OF('t')} FROM top t) AS current_cursor,
          (SELECT ${CURSOR_OF('n')} FROM newer n) AS next_cursor,
          (SELECT ${CURSOR_OF('o')} FROM older o) AS prev_cursor,
          p.*
   FROM (SELECT 1) one LEFT JOIN page p ON true
   ORDER BY p.block_height DESC, p.event_index DESC`,
);

export interface ContractLogPage {
  total: number;
  events: DbEvent[];
  current: string | null;
  next: string | null;
  previous: string | null;
}

export async function getContractLogPage(
  db: Knex,
  contractId: string,
  page: { limit: number; offset: number },
  cursor: { height: number; eventIndex: number } | null,
): Promise<ContractLogPage> {
  type Row = Partial<DbEvent> & {
    total: string;
    current_cursor: string | null;
    next_cursor: string | null;
    prev_cursor: string | null;
  };
  const rows = await query<Row>(db, LOG_PAGE, [
    contractId,
    page.limit,
    page.offset,
    cursor?.height ?? null,
    cursor?.eventIndex ?? null,
  ]);
  const first = rows[0]!;
  return {
    total: Number(first.total),
    events: rowsCarrying<DbEvent>(rows, 'tx_id'),
    current: first.current_cursor,
    next: first.next_cursor,
    previous: first.prev_cursor,
  };
}
