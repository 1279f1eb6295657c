import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { parseRecordedTime, readNodeEventFile, type RecordedEvent } from '../src/node-event-file';

/**
 * The reference API's `export-events` writes its `event_observer_requests` table with PostgreSQL's COPY text format.
 * Here a real PostgreSQL writes such an export of a fixture, whose bodies hold JSON escapes (`\"`, `\n`, `\u0000`)
 * that COPY escapes again, and the reader must give back every row exactly.
 */
describe('reading an export written by PostgreSQL COPY', () => {
  let client: pg.Client;
  let dir: string;
  // The fixture's rows, cut here at their first three tabs (a body may hold tabs of its own).
  const rows = readFileSync(
    join(import.meta.dirname, '../../../test/fixtures/stacks-node-events/fuzzed-transactions-1.tsv'),
    'utf8',
  )
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [id, receivedAt, path] = line.split('\t', 3) as [string, string, string];
      return { id, receivedAt, path, body: line.slice(id.length + receivedAt.length + path.length + 3) };
    });

  beforeAll(async () => {
    client = new pg.Client(await createTestDatabase(testInfra().databaseUrl, 'copy_export'));
    await client.connect();
    dir = mkdtempSync(join(tmpdir(), 'bda-copy-'));
    chmodSync(dir, 0o777); // the server process writes the file
    await client.query(`SET TIME ZONE 'UTC'`);
    // The reference's table, with `json` for the payload so the text comes back byte for byte.
    await client.query(
      `CREATE TABLE event_observer_requests (id bigint PRIMARY KEY, receive_timestamp timestamptz, event_path text, payload json)`,
    );
    for (const r of rows) {
      await client.query('INSERT INTO event_observer_requests VALUES ($1, $2, $3, $4)', [r.id, r.receivedAt, r.path, r.body]);
    }
    await client.query(
      `COPY (SELECT id, receive_timestamp, event_path, payload FROM event_observer_requests ORDER BY id ASC)
       TO '${join(dir, 'export.tsv')}' WITH (FORMAT TEXT, DELIMITER E'\\t', ENCODING 'UTF8')`,
    );
  });
  afterAll(async () => {
    await client?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  async function read(copyEscaped: boolean): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for await (const e of readNodeEventFile(join(dir, 'export.tsv'), { copyEscaped })) out.push(e);
    return out;
  }

  it('gives back every row, bodies byte for byte, with --copy-escaped', async () => {
    const read_ = await read(true);
    expect(read_.map((r) => [r.id, r.path, r.body])).toEqual(rows.map((r) => [r.id, r.path, r.body]));
    expect(read_.map((r) => parseRecordedTime(r.receivedAt)?.toISOString())).toEqual(
      rows.map((r) => parseRecordedTime(r.receivedAt)?.toISOString()),
    );
  });

  it('differs from the raw rows without it: the export escapes the bodies that hold backslashes', async () => {
    expect(readFileSync(join(dir, 'export.tsv'), 'utf8')).toContain('\\\\u0000');
    const raw = await read(false);
    const changed = raw.filter((r, i) => r.body !== rows[i]!.body);
    expect(changed.length).toBeGreaterThan(0);
  });
});
