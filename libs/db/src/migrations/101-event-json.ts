import type { Knex } from 'knex';
import type { DbEventJsonColumns } from '../event-json/event-json';
import { toEventJsonText } from '../event-json/event-json';

/**
 * `event_json` (issue 24, ADR 0038): each stored event's answer in the reference API's transaction-event shape, kept
 * as the JSON text the api would write for it, so that a principal's events page (`/extended/v1/tx/events?address=`)
 * is a range of `principal_events` joined by primary key to 20 short texts the api splices into its answer, instead
 * of 20 `events` rows mapped and serialized per request.
 *
 * One row per `events` row of a kind the api shows (`toEventJson` not null), canonical or not: nothing in the text
 * depends on the canonical flags or on other rows (an event's columns are fixed when its block is written; `events`
 * rows are never updated or deleted, reorgs flip `canonical`, and microblock orphaning moves no event: events come
 * only from anchored blocks). Which rows a page shows is `principal_events`' business (canonical events only).
 *
 * The indexer writes the rows with the block's `events`, in its transaction, rendered by the same mapper as the api
 * (`libs/db/src/event-json`). `up` renders the rows already indexed with that mapper, `BATCH` events a statement.
 */

const BATCH = 5000;

const COLUMNS = `index_block_hash, event_index, tx_id, type, asset_identifier, sender, recipient, amount, memo, value_hex,
  value_repr, contract_identifier, topic, locked_amount, unlock_height, locked_address`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE event_json (
    index_block_hash text COLLATE "C" NOT NULL,
    event_index integer NOT NULL,
    json text COLLATE "C" NOT NULL,
    PRIMARY KEY (index_block_hash, event_index)
  )`);
  await knex.raw(
    `COMMENT ON TABLE event_json IS 'Each event''s answer in the reference transaction-event shape, JSON text (ADR 0038)'`,
  );
  await knex.raw(`COMMENT ON COLUMN event_json.json IS 'JSON.stringify of the api''s answer for the events row'`);
  let after: [string, number] = ['', -1];
  for (;;) {
    const { rows } = (await knex.raw(
      `SELECT ${COLUMNS} FROM events WHERE (index_block_hash, event_index) > (?, ?)
       ORDER BY index_block_hash, event_index LIMIT ?`,
      [after[0], after[1], BATCH],
    )) as { rows: Array<DbEventJsonColumns & { index_block_hash: string }> };
    if (rows.length === 0) break;
    const hashes: string[] = [];
    const indexes: number[] = [];
    const texts: string[] = [];
    for (const row of rows) {
      const text = toEventJsonText(row);
      if (text === null) continue;
      hashes.push(row.index_block_hash);
      indexes.push(row.event_index);
      texts.push(text);
    }
    if (texts.length > 0) {
      await knex.raw(
        `INSERT INTO event_json (index_block_hash, event_index, json)
         SELECT * FROM unnest(?::text[], ?::int[], ?::text[])`,
        [hashes, indexes, texts],
      );
    }
    const last = rows[rows.length - 1]!;
    after = [last.index_block_hash, last.event_index];
  }
  await knex.raw('ANALYZE event_json');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE event_json');
}
