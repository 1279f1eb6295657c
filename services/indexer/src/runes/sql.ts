import type { Knex } from 'knex';

/** A column given as one array: `[name, PostgreSQL element type, values]`. */
export type ArrayColumn = [name: string, type: string, values: readonly unknown[]];

/**
 * `unnest(?::t1[], ?::t2[]) AS alias(c1, c2)`: a set of rows passed as one array per column, so a block's
 * thousands of rows take one statement and a handful of parameters. Bind the arrays in the same order.
 */
export function unnestJoin(alias: string, columns: ReadonlyArray<readonly [string, string]>): string {
  return `unnest(${columns.map(([, type]) => `?::${type}[]`).join(', ')}) AS ${alias}(${columns.map(([n]) => n).join(', ')})`;
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
