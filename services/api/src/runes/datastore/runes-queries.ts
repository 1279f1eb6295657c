/**
 * Read queries of the `/runes/v1` endpoints. Each is one statement (one consistent snapshot, one round trip) and
 * reads index ranges only: lists are addressed by the positions the indexer numbered them with (block position,
 * per-operation position, per-rune / per-address / per-rune-and-address sequence, rune number), and every `total` is
 * a maintained counter — nothing is sorted or counted at request time.
 */
import type { Knex } from 'knex';
import { RUNE_OPERATIONS, type DbRune } from '@bda/db';
import type { BlockParam, EtchingParam } from '../routes/runes-params';
import type { RunesDb } from './runes-db';

/**
 * The rune of activity row `a` and the block it is in, each looked up by primary key per row: a LATERAL subquery with
 * OFFSET 0 cannot be flattened, so the planner cannot hash-join a page against the whole `runes` or `rune_blocks`
 * table (what it picks for small tables, and a cost that would grow with the ledger).
 */
const RUNE_OF_ROW = `CROSS JOIN LATERAL (
  SELECT r.number AS rune_number, r.block_height AS rune_block, r.tx_index AS rune_tx, r.rune, r.spacers, r.divisibility
  FROM runes r WHERE r.number = a.rune_number OFFSET 0) r`;
const BLOCK_OF_ROW = `CROSS JOIN LATERAL (
  SELECT b.block_hash, b.block_time FROM rune_blocks b WHERE b.block_height = a.block_height OFFSET 0) b`;
const ACTIVITY = 'a.block_height, a.position, a.tx_index, a.tx_id, a.operation, a.address, a.receiver_address, a.amount, a.vout';
const RUNE_REF = 'r.rune_number, r.rune_block, r.rune_tx, r.rune, r.spacers, r.divisibility';

/** Newest first: by block, then position, descending. */
const newestFirstOrder = (x: DbRuneActivity, y: DbRuneActivity) => y.block_height - x.block_height || y.position - x.position;

export interface DbRuneRef {
  rune_number: number;
  rune_block: number;
  rune_tx: number;
  rune: string;
  spacers: number;
  divisibility: number;
}

export interface DbRuneActivity extends DbRuneRef {
  block_height: number;
  block_hash: string;
  block_time: string;
  position: number;
  tx_index: number;
  tx_id: string;
  operation: number;
  address: string | null;
  receiver_address: string | null;
  amount: string | null;
  vout: number | null;
}

/** A `runes` row as the api reads it: the indexer's row type. */

const RUNE_COLUMNS = [
  'number',
  'block_height',
  'tx_index',
  'rune',
  'spacers',
  'divisibility',
  'symbol',
  'premine',
  'has_terms',
  'terms_amount',
  'terms_cap',
  'terms_height_start',
  'terms_height_end',
  'terms_offset_start',
  'terms_offset_end',
  'turbo',
  'etching_tx_id',
  'etching_block_hash',
  'block_time',
  'mints',
  'burned',
  'burn_count',
  'activity_count',
  'holder_count',
] as const;

/** The rune's columns as `r_<column>` (they sit beside the rows' own columns). */
const RUNE_AS_PREFIXED = RUNE_COLUMNS.map((c) => `r.${c} AS r_${c}`).join(', ');

function unprefixRune(row: Record<string, unknown>): DbRune {
  return Object.fromEntries(RUNE_COLUMNS.map((c) => [c, row[`r_${c}`]])) as unknown as DbRune;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface Listing<T> {
  total: number;
  rows: T[];
}

function blockCondition(block: BlockParam): [string, Knex.Value] {
  return block.kind === 'height' ? ['block_height = ?', block.height] : ['block_hash = ?', block.hash];
}

const BLOCK_ROW_COLUMNS = 'a.position, a.tx_index, a.tx_id, a.operation, a.address, a.receiver_address, a.amount, a.vout';

/**
 * A block's activity page, or `undefined` when the block is not indexed. Without a filter the page is the position
 * range [offset, offset + limit); with one operation, its per-operation position range. With several, a binary
 * search over the block's positions (each row knows how many rows of every operation precede it) finds the row the
 * page starts at, and each listed operation contributes at most `limit` rows from there — O(log n + limit).
 */
export async function blockActivity(
  db: RunesDb,
  block: BlockParam,
  operations: number[] | undefined,
  page: Page,
): Promise<(Listing<DbRuneActivity> & { block_height: number }) | undefined> {
  const [cond, value] = blockCondition(block);
  type Row = Partial<DbRuneActivity> & { block_height: number; block_hash: string; block_time: string; total: number };
  let rows: Row[];
  if (!operations || operations.length === 1) {
    const op = operations?.[0];
    const total = op === undefined ? 'b.activity_count' : `b.${RUNE_OPERATIONS[op]}_count`;
    const range =
      op === undefined
        ? 'a.position >= ?::bigint AND a.position < ?::bigint ORDER BY a.position'
        : `a.operation = ${op} AND a.op_position >= ?::bigint AND a.op_position < ?::bigint ORDER BY a.op_position`;
    rows = await db.query<Row>(
      `SELECT b.block_height, b.block_hash, b.block_time, ${total} AS total, p.*
       FROM rune_blocks b
       LEFT JOIN LATERAL (
         SELECT ${BLOCK_ROW_COLUMNS}, ${RUNE_REF}
         FROM (SELECT * FROM rune_activity a WHERE a.block_height = b.block_height AND ${range}) a
         ${RUNE_OF_ROW}
       ) p ON true
       WHERE b.${cond}`,
      [page.offset, page.offset + page.limit, value],
    );
  } else {
    const names = operations.map((op) => RUNE_OPERATIONS[op]!);
    const before = names.map((n) => `a.before_${n}`).join(' + ');
    const branches = operations
      .map(
        (op, i) =>
          `(SELECT a.* FROM start s JOIN rune_activity a
              ON a.block_height = s.block_height AND a.operation = ${op} AND a.op_position >= s.before_${names[i]}
            ORDER BY a.op_position LIMIT ?)`,
      )
      .join(' UNION ALL ');
    rows = await db.query<Row>(
      `WITH RECURSIVE blk AS (
         SELECT block_height, block_hash, block_time, activity_count, ${names.map((n) => `${n}_count`).join(' + ')} AS total
         FROM rune_blocks WHERE ${cond}
       ),
       bs(lo, hi) AS (
         SELECT 0, blk.activity_count - 1 FROM blk WHERE ?::bigint < blk.total
         UNION ALL
         SELECT CASE WHEN m.f <= ?::bigint THEN m.mid ELSE bs.lo END, CASE WHEN m.f <= ?::bigint THEN bs.hi ELSE m.mid - 1 END
         FROM bs CROSS JOIN blk CROSS JOIN LATERAL (
           SELECT a.position AS mid, ${before} AS f FROM rune_activity a
           WHERE a.block_height = blk.block_height AND a.position = (bs.lo + bs.hi + 1) / 2
         ) m
         WHERE bs.lo < bs.hi
       ),
       start AS (
         SELECT a.* FROM bs CROSS JOIN blk JOIN rune_activity a ON a.block_height = blk.block_height AND a.position = bs.lo
         WHERE bs.lo >= bs.hi
       ),
       page AS (${branches})
       SELECT blk.block_height, blk.block_hash, blk.block_time, blk.total, p.*
       FROM blk LEFT JOIN LATERAL (
         SELECT ${BLOCK_ROW_COLUMNS}, ${RUNE_REF} FROM page a ${RUNE_OF_ROW}
       ) p ON true`,
      [value, page.offset, page.offset, page.offset, ...operations.map(() => page.limit)],
    );
  }
  const first = rows[0];
  if (!first) return undefined;
  const page_ = rows
    .filter((r) => r.position !== null && r.position !== undefined)
    .map(
      (r) =>
        ({
          ...r,
          block_height: first.block_height,
          block_hash: first.block_hash,
          block_time: first.block_time,
        }) as DbRuneActivity,
    );
  // Rows come in position order per branch; several operations arrive per operation: back to chain order.
  page_.sort((x, y) => x.position - y.position);
  return { block_height: first.block_height, total: Number(first.total), rows: page_.slice(0, page.limit) };
}

function etchingCondition(etching: EtchingParam): [string, Knex.Value[]] {
  switch (etching.kind) {
    case 'id':
      return ['block_height = ? AND tx_index = ?', [etching.block, etching.tx]];
    case 'number':
      return ['number = ?', [etching.number]];
    case 'name':
      return etching.spacers === undefined
        ? ['rune = ?::numeric', [etching.rune.toString()]]
        : ['rune = ?::numeric AND spacers = ?', [etching.rune.toString(), etching.spacers]];
    case 'none':
      return ['false', []];
  }
}

const TIP = '(SELECT block_height FROM rune_blocks ORDER BY block_height DESC LIMIT 1)';

export async function runeByEtching(db: RunesDb, etching: EtchingParam): Promise<(DbRune & { tip: number | null }) | undefined> {
  const [cond, values] = etchingCondition(etching);
  const rows = await db.query<DbRune & { tip: number | null }>(`SELECT r.*, ${TIP} AS tip FROM runes r WHERE ${cond}`, values);
  return rows[0];
}

/** Newest first: rune numbers are dense, so the page is a number range. */
export async function etchings(db: RunesDb, page: Page): Promise<Listing<DbRune> & { tip: number | null }> {
  const rows = await db.query<Partial<DbRune> & { total: number; tip: number | null }>(
    `WITH c AS (SELECT coalesce((SELECT number FROM runes ORDER BY number DESC LIMIT 1) + 1, 0) AS total, ${TIP} AS tip)
     SELECT c.total, c.tip, p.* FROM c LEFT JOIN LATERAL (
       SELECT * FROM runes WHERE number <= c.total - 1 - ?::bigint AND number >= c.total - ?::bigint - ?::bigint ORDER BY number DESC
     ) p ON true`,
    [page.offset, page.offset, page.limit],
  );
  const first = rows[0]!;
  const list = rows.filter((r) => r.number !== null) as DbRune[];
  list.sort((x, y) => y.number - x.number);
  return { total: Number(first.total), tip: first.tip, rows: list };
}

/** `seq` in the window of a newest-first page over a list of `count` rows numbered 0 … count - 1 in chain order. */
const newestFirst = (seq: string, count: string) =>
  `${seq} <= ${count} - 1 - ?::bigint AND ${seq} >= ${count} - ?::bigint - ?::bigint ORDER BY ${seq} DESC`;

/** A rune's activity, newest first; `undefined` for an unknown rune. */
export async function runeActivity(
  db: RunesDb,
  etching: EtchingParam,
  page: Page,
): Promise<(Listing<DbRuneActivity> & { rune: DbRune }) | undefined> {
  const [cond, values] = etchingCondition(etching);
  const rows = await db.query<Record<string, unknown>>(
    `WITH r AS (SELECT * FROM runes WHERE ${cond})
     SELECT ${RUNE_AS_PREFIXED}, r.activity_count AS total, p.* FROM r LEFT JOIN LATERAL (
       SELECT ${ACTIVITY}, b.block_hash, b.block_time
       FROM (SELECT * FROM rune_activity a WHERE a.rune_number = r.number AND ${newestFirst('a.rune_seq', 'r.activity_count')}) a
       ${BLOCK_OF_ROW}
     ) p ON true`,
    [...values, page.offset, page.offset, page.limit],
  );
  return withRune(rows);
}

/** A rune's activity for one address, newest first; `undefined` for an unknown rune. */
export async function runeAddressActivity(
  db: RunesDb,
  etching: EtchingParam,
  address: string,
  page: Page,
): Promise<(Listing<DbRuneActivity> & { rune: DbRune }) | undefined> {
  const [cond, values] = etchingCondition(etching);
  const rows = await db.query<Record<string, unknown>>(
    `WITH r AS (SELECT * FROM runes WHERE ${cond}),
     c AS (SELECT r.number, coalesce((SELECT activity_count FROM rune_balances WHERE rune_number = r.number AND address = ?), 0) AS n FROM r)
     SELECT ${RUNE_AS_PREFIXED}, c.n AS total, p.* FROM r CROSS JOIN c LEFT JOIN LATERAL (
       SELECT ${ACTIVITY}, b.block_hash, b.block_time
       FROM (SELECT * FROM rune_activity a
             WHERE a.rune_number = c.number AND a.address = ? AND ${newestFirst('a.rune_address_seq', 'c.n')}) a
       ${BLOCK_OF_ROW}
     ) p ON true`,
    [...values, address, address, page.offset, page.offset, page.limit],
  );
  return withRune(rows);
}

/** Rows carrying the rune as `r_` columns and a `total`: the rune, the total and the page (with the rune's ref). */
function withRune(rows: Array<Record<string, unknown>>): (Listing<DbRuneActivity> & { rune: DbRune }) | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const rune = unprefixRune(first);
  const ref: DbRuneRef = {
    rune_number: rune.number,
    rune_block: rune.block_height,
    rune_tx: rune.tx_index,
    rune: rune.rune,
    spacers: rune.spacers,
    divisibility: rune.divisibility,
  };
  const list = rows.filter((r) => r['position'] !== null).map((r) => ({ ...(r as unknown as DbRuneActivity), ...ref }));
  list.sort(newestFirstOrder);
  return { rune, total: Number(first['total']), rows: list };
}

/** An address's activity (all runes), newest first. */
export async function addressActivity(db: RunesDb, address: string, page: Page): Promise<Listing<DbRuneActivity>> {
  const rows = await db.query<Partial<DbRuneActivity> & { total: string }>(
    `WITH c AS (SELECT coalesce((SELECT activity_count FROM rune_addresses WHERE address = ?), 0) AS n)
     SELECT c.n AS total, p.* FROM c LEFT JOIN LATERAL (
       SELECT ${ACTIVITY}, b.block_hash, b.block_time, ${RUNE_REF}
       FROM (SELECT * FROM rune_activity a WHERE a.address = ? AND ${newestFirst('a.address_seq', 'c.n')}) a
       ${BLOCK_OF_ROW}
       ${RUNE_OF_ROW}
     ) p ON true`,
    [address, address, page.offset, page.offset, page.limit],
  );
  const list = rows.filter((r) => r.position !== null) as DbRuneActivity[];
  list.sort(newestFirstOrder);
  return { total: Number(rows[0]!.total), rows: list };
}

/** A transaction's activity in chain order (its rows are one position range of its block). */
export async function transactionActivity(db: RunesDb, txId: string, page: Page): Promise<Listing<DbRuneActivity>> {
  const rows = await db.query<Partial<DbRuneActivity> & { total: number }>(
    `WITH t AS (SELECT coalesce(max(activity_count), 0) AS n, max(block_height) AS h, max(first_position) AS f
                FROM rune_txs WHERE tx_id = ?)
     SELECT t.n AS total, p.* FROM t LEFT JOIN LATERAL (
       SELECT ${ACTIVITY}, b.block_hash, b.block_time, ${RUNE_REF}
       FROM (SELECT * FROM rune_activity a
             WHERE a.block_height = t.h AND a.position >= t.f + ?::bigint AND a.position < t.f + least(t.n, ?::bigint + ?::bigint)
             ORDER BY a.position) a
       ${BLOCK_OF_ROW}
       ${RUNE_OF_ROW}
     ) p ON true`,
    [txId, page.offset, page.offset, page.limit],
  );
  const list = rows.filter((r) => r.position !== null) as DbRuneActivity[];
  list.sort((x, y) => x.position - y.position);
  return { total: Number(rows[0]!.total), rows: list };
}

export interface DbRuneHolder {
  address: string;
  balance: string;
}

/** A rune's holders by balance, largest first (the partial index on positive balances). */
export async function runeHolders(
  db: RunesDb,
  etching: EtchingParam,
  page: Page,
): Promise<(Listing<DbRuneHolder> & { rune: DbRune }) | undefined> {
  const [cond, values] = etchingCondition(etching);
  const rows = await db.query<Record<string, unknown>>(
    `WITH r AS (SELECT * FROM runes WHERE ${cond})
     SELECT ${RUNE_AS_PREFIXED}, p.* FROM r LEFT JOIN LATERAL (
       SELECT address, balance FROM rune_balances
       WHERE rune_number = r.number AND balance > 0 ORDER BY balance DESC, address LIMIT ? OFFSET ?
     ) p ON true`,
    [...values, page.limit, page.offset],
  );
  const first = rows[0];
  if (!first) return undefined;
  const rune = unprefixRune(first);
  return {
    rune,
    total: Number(rune.holder_count),
    rows: rows
      .filter((r) => r['address'] !== null)
      .map((r) => ({ address: r['address'] as string, balance: r['balance'] as string })),
  };
}

/** One holder's balance; `rune` undefined for an unknown rune, `holder` undefined when it holds none. */
export async function runeHolder(
  db: RunesDb,
  etching: EtchingParam,
  address: string,
): Promise<{ rune?: DbRune; holder?: DbRuneHolder }> {
  const [cond, values] = etchingCondition(etching);
  const rows = await db.query<Record<string, unknown>>(
    `WITH r AS (SELECT * FROM runes WHERE ${cond})
     SELECT ${RUNE_AS_PREFIXED}, b.address, b.balance FROM r
     LEFT JOIN rune_balances b ON b.rune_number = r.number AND b.address = ? AND b.balance > 0`,
    [...values, address],
  );
  const first = rows[0];
  if (!first) return {};
  const holder = first['address'] ? { address: first['address'] as string, balance: first['balance'] as string } : undefined;
  return { rune: unprefixRune(first), holder };
}

export type DbRuneBalance = DbRuneRef & { address: string; balance: string };

/** An address's positive balances in rune number order. */
export async function addressBalances(db: RunesDb, address: string, page: Page): Promise<Listing<DbRuneBalance>> {
  const rows = await db.query<Partial<DbRuneBalance> & { total: number }>(
    `WITH c AS (SELECT coalesce((SELECT rune_count FROM rune_addresses WHERE address = ?), 0) AS n)
     SELECT c.n AS total, p.* FROM c LEFT JOIN LATERAL (
       SELECT a.address, a.balance, ${RUNE_REF}
       FROM (SELECT * FROM rune_balances a WHERE a.address = ? AND a.balance > 0 ORDER BY a.rune_number LIMIT ? OFFSET ?) a
       ${RUNE_OF_ROW}
     ) p ON true`,
    [address, address, page.limit, page.offset],
  );
  const list = rows.filter((r) => r.address !== null) as DbRuneBalance[];
  list.sort((x, y) => x.rune_number - y.rune_number);
  return { total: Number(rows[0]!.total), rows: list };
}

export async function runesTip(db: RunesDb): Promise<{ block_height: number; block_hash: string } | undefined> {
  const rows = await db.query<{ block_height: number; block_hash: string }>(
    'SELECT block_height, block_hash FROM rune_blocks ORDER BY block_height DESC LIMIT 1',
    [],
  );
  return rows[0];
}
