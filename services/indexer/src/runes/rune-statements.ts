import type { Knex } from 'knex';

/** A column given as one array: `[name, PostgreSQL element type, values]`. */
export type ArrayColumn = [name: string, type: string, values: readonly unknown[]];

/**
 * `unnest(?::t1[], ?::t2[]) AS alias(c1, c2)`: a set of rows passed as one array per column, so a block's
 * thousands of rows take one statement and a handful of parameters. Bind the arrays in the same order. `bytea`
 * columns are bound as arrays of hex strings (decoded in SQL: far cheaper to send than escaped binary arrays).
 */
function unnestJoin(alias: string, columns: ReadonlyArray<readonly [string, string]>): string {
  const names = columns.map(([n]) => n).join(', ');
  const arrays = columns.map(([, type]) => `?::${type === 'bytea' ? 'text' : type}[]`).join(', ');
  if (!columns.some(([, type]) => type === 'bytea')) return `unnest(${arrays}) AS ${alias}(${names})`;
  const select = columns.map(([n, type]) => (type === 'bytea' ? `decode(${n}, 'hex') AS ${n}` : n)).join(', ');
  return `(SELECT ${select} FROM unnest(${arrays}) AS u(${names})) AS ${alias}`;
}

type Keys = ReadonlyArray<readonly [string, string]>;

/** Key columns of an outpoint: bind an array of txid hex strings and an array of vouts. */
export const OUTPOINT: Keys = [
  ['tx_id', 'bytea'],
  ['vout', 'int'],
];

/**
 * `SELECT <select> …` of the rows of `table` (alias `o`) matching each key row (alias `i`), each found by its own
 * index lookup. The LATERAL subquery with OFFSET 0 cannot be flattened, so the planner cannot turn a block's keys
 * into a join against the whole table — what it does when the table's statistics are young (a nested loop over a
 * materialized table: cost × the table's size). Bind the key arrays.
 */
export function lookupEach(keys: Keys, table: string, match: string, select = 'o.*'): string {
  return `SELECT ${select} FROM ${unnestJoin('i', keys)} CROSS JOIN LATERAL (SELECT o.ctid, o.* FROM ${table} o WHERE ${match} OFFSET 0) o`;
}

/** `ARRAY(…)` of the ctids of the rows {@link lookupEach} finds: for `UPDATE/DELETE … WHERE ctid = ANY(…)` (a TID scan). */
export function ctidsOf(keys: Keys, table: string, match: string): string {
  return `ARRAY(SELECT o.ctid FROM ${unnestJoin('i', keys)} CROSS JOIN LATERAL (SELECT ctid FROM ${table} o WHERE ${match} OFFSET 0) o)`;
}

/** Inserts rows given column-wise (no-op when empty). */
export async function insertColumns(trx: Knex.Transaction, table: string, columns: ArrayColumn[]): Promise<void> {
  const count = columns[0]?.[2].length ?? 0;
  if (count === 0) return;
  for (const [name, , values] of columns) {
    if (values.length !== count) throw new Error(`column ${table}.${name}: ${values.length} values, expected ${count}`);
  }
  await trx.raw(
    `INSERT INTO ${table} (${columns.map(([n]) => n).join(', ')}) SELECT * FROM ${unnestJoin(
      'v',
      columns.map(([n, t]) => [n, t] as const),
    )}`,
    columns.map(([, , values]) => values as Knex.Value),
  );
}

/**
 * Upserts rows given column-wise: on a conflict over `key`, the other columns take the new values.
 */
export async function upsertColumns(trx: Knex.Transaction, table: string, key: string[], columns: ArrayColumn[]): Promise<void> {
  const count = columns[0]?.[2].length ?? 0;
  if (count === 0) return;
  const rest = columns.map(([n]) => n).filter((n) => !key.includes(n));
  await trx.raw(
    `INSERT INTO ${table} (${columns.map(([n]) => n).join(', ')}) SELECT * FROM ${unnestJoin(
      'v',
      columns.map(([n, t]) => [n, t] as const),
    )} ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${rest.map((n) => `${n} = excluded.${n}`).join(', ')}`,
    columns.map(([, , values]) => values as Knex.Value),
  );
}
