import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * How the chain reads reach PostgreSQL. Each response is answered by one statement: a statement is its own snapshot,
 * so a response needs no transaction. Round trips were most of what a read cost: BEGIN and COMMIT were two of their
 * own, and in a CPU profile of the api under load on an address's history (six statements a request), the socket
 * writes of its statements took a quarter of the api's CPU. Each statement has a fixed text, built once at start-up,
 * and runs as a named prepared statement of the connection: parsed once per connection, and no knex builder per
 * request (knex's query building was a sixth of the api's CPU).
 *
 * The api's connections use generic plans (`plan_cache_mode = force_generic_plan`, set in `main.ts`): PostgreSQL
 * would otherwise plan the statements with a `LIMIT $n` again on every execution (an unknown limit makes the generic
 * plan's estimate dearer than a custom plan's), and planning a statement that joins six tables took longer than
 * running it (1.3 ms against 0.5 ms for a page of an address's history). The texts are written for that:
 * - `canonical` is a literal, never a parameter, so the partial indexes on canonical rows serve the generic plan;
 * - where a page of unknown size meets a big table, each row is looked up in a LATERAL subquery kept from being
 *   flattened (`OFFSET 0`), so the plan stays a keyed lookup per row whatever size it guesses for the page.
 * A generic plan is made for the tables as they are when a connection first runs the statement, and made again
 * after an ANALYZE of them (autovacuum's).
 */
export interface Statement {
  /** The prepared statement's name: a digest of the text, so one text always gets one name. */
  readonly name: string;
  /** SQL with `$1…` placeholders. */
  readonly text: string;
}

/** A statement of `text` (`$1…` placeholders). */
export function statement(text: string): Statement {
  return { name: `chain_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
}

/**
 * The rows of a statement that carry a record (their `column`, a key of it, is not null) as that record's type: the
 * rows themselves, with the statement's other columns (the tip, a total, ABIs) still on them, which the mappers do
 * not read. A LEFT JOIN gives one row of nulls when there is no record. Copying each row into an object of its own
 * cost 5% of the api's CPU on a page of an address's history.
 */
export function rowsCarrying<T>(rows: ReadonlyArray<object>, column: string): T[] {
  return rows.filter((r) => (r as Record<string, unknown>)[column] !== null) as T[];
}

type ConnectionClient = {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): Promise<void>;
};

/**
 * Runs `s` on a connection of knex's pool. Rows come as node-postgres parses them (int8 and numeric as strings, see
 * `createDb`), as knex returned them. A connection that fails is marked by knex's own listeners and dropped by its
 * pool when next acquired.
 */
export async function query<T>(db: Knex, s: Statement, values: unknown[]): Promise<T[]> {
  const client = db.client as ConnectionClient;
  const connection = await client.acquireConnection();
  try {
    const result = await connection.query<T & pg.QueryResultRow>({ name: s.name, text: s.text, values });
    return result.rows;
  } finally {
    await client.releaseConnection(connection);
  }
}
