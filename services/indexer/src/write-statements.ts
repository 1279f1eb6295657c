import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import { encodeBinaryArray } from './binary-array';

/**
 * Round trips are most of what applying a small event costs (each statement waits for PostgreSQL before the next
 * is sent), and planning is most of what a fixed statement costs. Two helpers cut both:
 * - `runPrepared` runs a statement as a named prepared statement of the transaction's connection: planned once
 *   per connection, then only bound and executed;
 * - `WriteBatch` sends several writes whose results nobody reads as one statement of data-modifying CTEs.
 */

type ConnectionClient = { acquireConnection(): Promise<pg.Client> };

const names = new Map<string, string>();

/**
 * Most distinct statement texts that get a prepared statement on every connection, and the longest text that gets
 * one: others run unnamed (parsed and planned each time), so statements whose text varies with the data (a `VALUES`
 * list per row count) never pile up in a session.
 */
const MAX_PREPARED = 200;
const MAX_PREPARED_TEXT = 16_384;

function preparedName(text: string): string | undefined {
  let name = names.get(text);
  if (!name && names.size < MAX_PREPARED && text.length <= MAX_PREPARED_TEXT) {
    name = `idx_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** `text` uses `$1…` placeholders. Rows as node-postgres returns them (int8/numeric as strings, see `createDb`). */
export async function runPrepared<T extends pg.QueryResultRow>(
  trx: Knex.Transaction,
  text: string,
  values: unknown[],
): Promise<T[]> {
  // Inside a transaction knex hands out the transaction's own connection (and releasing it is a no-op).
  const connection = await (trx.client as ConnectionClient).acquireConnection();
  const result = await connection.query<T>({ name: preparedName(text), text, values });
  return result.rows;
}

/** A statement with `$1…` placeholders and its values. */
export interface NativeStatement {
  sql: string;
  bindings: readonly unknown[];
}

/** A column's type as SQL (`format_type`, with its modifier) and its type OID. */
interface ColumnType {
  type: string;
  oid: number;
}

/** A table's column types by column name. */
export type ColumnTypes = ReadonlyMap<string, ColumnType>;

/** Column types per table, read once from the catalog: the indexer's schema is fixed while it runs. */
const columnTypes = new Map<string, Map<string, ColumnType>>();

const COLUMN_TYPES_SQL = `SELECT attname AS name, format_type(atttypid, atttypmod) AS type, atttypid::int AS oid
  FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`;

/** The column types of `table`, read from the catalog on first use (cached for the life of the process). */
export async function columnTypesOf(trx: Knex.Transaction, table: string): Promise<ColumnTypes> {
  let types = columnTypes.get(table);
  if (!types) {
    const found = await runPrepared<{ name: string; type: string; oid: number }>(trx, COLUMN_TYPES_SQL, [table]);
    types = new Map(found.map((c) => [c.name, { type: c.type, oid: c.oid }]));
    columnTypes.set(table, types);
  }
  return types;
}

/**
 * Reads the column types of every table of the current schema in one query, at start-up: the first block after a
 * restart then waits on no catalog reads (one round trip per table it writes, on a fresh backend), and a schema the
 * indexer cannot read fails the start instead of the first record. Answers the number of tables read.
 */
export async function loadColumnTypes(db: Knex): Promise<number> {
  const { rows } = (await db.raw(
    `SELECT c.relname AS "table", a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.atttypid::int AS oid
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
        AND a.attnum > 0 AND NOT a.attisdropped`,
  )) as { rows: Array<{ table: string; name: string; type: string; oid: number }> };
  const byTable = new Map<string, Map<string, ColumnType>>();
  for (const r of rows) {
    let types = byTable.get(r.table);
    if (!types) byTable.set(r.table, (types = new Map()));
    types.set(r.name, { type: r.type, oid: r.oid });
  }
  for (const [table, types] of byTable) columnTypes.set(table, types);
  return byTable.size;
}

/** The column types of `table` if they were read already (`columnTypesOf`), for work done without a connection. */
export function knownColumnTypes(table: string): ColumnTypes | undefined {
  return columnTypes.get(table);
}

/**
 * An unnest insert with its array parameters built, waiting for the values of its `constants`: columns that hold
 * one value for every row, bound once each (`withConstants`). Built ahead, while PostgreSQL runs something else.
 */
export interface PreparedInsert {
  sql: string;
  arrays: ReadonlyArray<Buffer | string>;
  constants: readonly string[];
}

export interface UnnestOptions {
  /** Conflict target; no ON CONFLICT clause when omitted. */
  onConflict?: readonly string[];
  /** What a conflict on `onConflict` does: `DO NOTHING` unless given (e.g. `DO UPDATE SET … WHERE …`). */
  conflictAction?: string;
  /** Columns given one value for all rows when the statement is taken (`withConstants`), not per row. */
  constants?: readonly string[];
  /**
   * Columns PostgreSQL computes for each row: an SQL expression over the row's own values, named `u."column"`
   * (e.g. whether another table already holds the row's key). Part of the statement's text.
   */
  computed?: Readonly<Record<string, string>>;
}

/**
 * `INSERT INTO table (…) SELECT u.*[, $k::type…][, expression…] FROM unnest($1::type[], …) AS u (…) [ON CONFLICT …]`:
 * one array parameter per column whatever the number of rows, so the text is the same for every batch of the same
 * columns. PostgreSQL then parses and plans it once per connection (a `VALUES` list of n rows is a new statement for
 * every n, with a bind parameter per cell that both sides encode and decode one by one). Every row must have the same
 * keys; none of them a constant or a computed column.
 */
export function buildUnnestInsert(
  types: ColumnTypes,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
  options: UnnestOptions = {},
): PreparedInsert {
  const columns = Object.keys(rows[0] ?? {});
  const constants = options.constants ?? [];
  const typeOf = (c: string): ColumnType => {
    const type = types.get(c);
    if (!type) throw new Error(`unnestInsert: ${table} has no column ${c}`);
    return type;
  };
  const computed = Object.entries(options.computed ?? {});
  for (const [c] of computed) typeOf(c);
  const casts = columns.map((c, i) => `$${i + 1}::${typeOf(c).type}[]`);
  const scalars = constants.map((c, i) => `, $${columns.length + i + 1}::${typeOf(c).type}`);
  const expressions = computed.map(([, sql]) => `, ${sql}`);
  const { onConflict, conflictAction = 'DO NOTHING' } = options;
  const conflict = onConflict ? ` ON CONFLICT (${onConflict.map(quoteIdent).join(', ')}) ${conflictAction}` : '';
  const targets = [...columns, ...constants, ...computed.map(([c]) => c)];
  return {
    sql:
      `INSERT INTO ${quoteIdent(table)} (${targets.map(quoteIdent).join(', ')}) ` +
      `SELECT u.*${scalars.join('')}${expressions.join('')} FROM unnest(${casts.join(', ')}) AS u (${columns.map(quoteIdent).join(', ')})${conflict}`,
    arrays: columns.map((c) => arrayParameter(columnOf(rows, c), typeOf(c).oid)),
    constants,
  };
}

/** The statement of `insert` with its constants' values, in the order of `insert.constants`. */
export function withConstants(insert: PreparedInsert, values: readonly unknown[]): NativeStatement {
  if (values.length !== insert.constants.length) {
    throw new Error(
      `withConstants: ${insert.constants.length} constants (${insert.constants.join(', ')}), ${values.length} values`,
    );
  }
  return { sql: insert.sql, bindings: [...insert.arrays, ...values] };
}

/** `buildUnnestInsert` with the column types read first (and cached), for rows that carry every column. */
export async function unnestInsert(
  trx: Knex.Transaction,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
  options: Omit<UnnestOptions, 'constants'> = {},
): Promise<NativeStatement> {
  return withConstants(buildUnnestInsert(await columnTypesOf(trx, table), table, rows, options), []);
}

/**
 * `values` as an array parameter of element type `oid`: in PostgreSQL's binary format where this type has an encoder
 * and every value suits it (see binary-array.ts for why), else as a text literal (`arrayLiteral`).
 */
export function arrayParameter(values: readonly unknown[], oid: number): Buffer | string {
  return encodeBinaryArray(values, oid) ?? arrayLiteral(values);
}

/** Column `column` of `rows`, in row order. */
function columnOf(rows: ReadonlyArray<Record<string, unknown>>, column: string): unknown[] {
  const values = new Array<unknown>(rows.length);
  for (let i = 0; i < rows.length; i++) values[i] = rows[i]![column];
  return values;
}

const NEEDS_ESCAPE = /[\\"]/;

/**
 * `values` as a PostgreSQL array literal, the text node-postgres would make of a JS array (it makes the same one for
 * an array parameter, quoting and escaping every element with two regular-expression passes; on a block of 50
 * transactions that was a tenth of the indexer's CPU). Strings are quoted, escaped only when they hold `\` or `"`;
 * numbers and booleans go bare; buffers as `\x` hex; dates as ISO text; anything else (arrays too: the columns hold
 * scalars or JSON) as JSON; null and undefined as NULL.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v == null) out += 'NULL';
    else if (typeof v === 'string') out += quoteElement(v);
    else if (typeof v === 'number' || typeof v === 'bigint') out += String(v);
    else if (typeof v === 'boolean') out += v ? 't' : 'f';
    else if (Buffer.isBuffer(v)) out += `"\\\\x${v.toString('hex')}"`;
    else if (v instanceof Date) out += quoteElement(v.toISOString());
    else out += quoteElement(JSON.stringify(v));
  }
  return out + '}';
}

function quoteElement(s: string): string {
  return NEEDS_ESCAPE.test(s) ? `"${s.replace(/[\\"]/g, '\\$&')}"` : `"${s}"`;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Work to run once, on the transaction's next `WriteBatch` flush, while PostgreSQL executes that statement. */
const whileWriting = new WeakMap<Knex.Transaction, () => void>();

/**
 * Registers `fn` to run (once) right after the next `WriteBatch` of `trx` has sent its statement, before waiting for
 * the answer, or clears it (`undefined`). A block's write is the longest wait of its record, so the indexer prepares
 * the next record there (see `RecordApplier`).
 */
export function runWhileNextWriteWaits(trx: Knex.Transaction, fn: (() => void) | undefined): void {
  if (fn) whileWriting.set(trx, fn);
  else whileWriting.delete(trx);
}

/** PostgreSQL accepts 65 535 bind parameters per statement; a batch is sent before it would pass this. */
const MAX_BINDINGS = 30_000;

/**
 * Writes that do not depend on one another (no statement reads what another one writes: they all see the same
 * snapshot) and whose results are not needed, sent together: `WITH w0 AS (…), w1 AS (…) SELECT 1`. PostgreSQL runs
 * every data-modifying CTE exactly once and to completion, in one round trip.
 */
export class WriteBatch {
  private parts: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  private bindingCount = 0;

  constructor(readonly trx: Knex.Transaction) {}

  /**
   * Queues a knex insert/update/delete (or raw) statement, or a native one (`$n` placeholders, e.g. from
   * `unnestInsert`); flushes first when the batch would get too large.
   */
  async add(statement: Knex.QueryBuilder | Knex.Raw | NativeStatement): Promise<void> {
    // A knex builder or raw (which has `sql` and `bindings` of its own, with `?` placeholders) is compiled first.
    const native = 'toSQL' in statement ? statement.toSQL().toNative() : statement;
    if (this.bindingCount + native.bindings.length > MAX_BINDINGS) await this.flush();
    this.parts.push({ sql: native.sql, bindings: native.bindings });
    this.bindingCount += native.bindings.length;
  }

  async flush(): Promise<void> {
    const parts = this.parts;
    this.parts = [];
    this.bindingCount = 0;
    if (parts.length === 0) return;
    const connection = await (this.trx.client as ConnectionClient).acquireConnection();
    if (parts.length === 1) {
      const { sql, bindings } = parts[0]!;
      await this.send(connection, sql, bindings as unknown[]);
      return;
    }
    const bindings: unknown[] = [];
    const ctes = parts.map((part, i) => {
      const offset = bindings.length;
      bindings.push(...part.bindings);
      const sql = offset === 0 ? part.sql : part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
      return `w${i} AS (${sql})`;
    });
    const text = `WITH ${ctes.join(',\n')} SELECT 1`;
    // The same block shape gives the same text (unnest inserts do not vary with the row count): prepared once.
    await this.send(connection, text, bindings);
  }

  /** node-postgres writes the statement to the socket synchronously when the connection is idle, as it is here. */
  private async send(connection: pg.Client, text: string, values: unknown[]): Promise<void> {
    const answer = connection.query({ name: preparedName(text), text, values });
    const meanwhile = whileWriting.get(this.trx);
    if (meanwhile) {
      whileWriting.delete(this.trx);
      meanwhile();
    }
    await answer;
  }
}
