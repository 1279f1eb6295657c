import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, statement } from '../../datastore/read-statement';

/**
 * `/extended/v1/tx/events` for a principal, as the reference selects them (STX, FT and NFT events it sends or
 * receives, its STX locks, the logs of a contract it is), newest first, from `principal_events` (migration 088):
 * - every group: the principal's newest `seq` is its number of events (one backward probe of `principal_events_seq`)
 *   and the page at offset `$3` is the `seq` range below it (`$2` rows of that index), whatever the offset;
 * - one group (`$4`): the same over `group_seq` (`principal_events_group_seq`);
 * - several groups (`$4`, not all): the principal's `seq` index walked newest first, keeping the groups asked for
 *   (index-only: it includes `type_group`), bounded by the principal's events.
 * Each event's answer is then read as its kept text by primary key (`event_json`, migration 101, ADR 0038).
 */
function principalEventsText(groups: 'all' | 'one' | 'some'): string {
  const seq = groups === 'one' ? 'group_seq' : 'seq';
  const group = (alias: string) => (groups === 'one' ? ` AND ${alias}.type_group = $4::smallint` : '');
  const page =
    groups === 'some'
      ? `SELECT s.index_block_hash, s.event_index, s.seq FROM principal_events s
         WHERE s.principal = $1 AND s.type_group = ANY($4::smallint[])
         ORDER BY s.seq DESC LIMIT $2 OFFSET $3`
      : `SELECT s.index_block_hash, s.event_index, s.${seq} AS seq
         FROM (
           SELECT coalesce((SELECT x.${seq} FROM principal_events x WHERE x.principal = $1${group('x')}
                            ORDER BY x.${seq} DESC LIMIT 1), 0) AS total
         ) n
         JOIN principal_events s ON s.principal = $1${group('s')}
           AND s.${seq} <= n.total - $3::int8 AND s.${seq} > n.total - $3::int8 - $2::int8
         ORDER BY s.${seq} DESC`;
  return `SELECT ${TIP_SELECT}, ev.json
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT j.json, s.seq AS page_seq
     FROM (${page}) s
     CROSS JOIN LATERAL (
       SELECT j.json FROM event_json j
       WHERE j.index_block_hash = s.index_block_hash AND j.event_index = s.event_index
       OFFSET 0
     ) j
   ) ev ON true
   ORDER BY ev.page_seq DESC`;
}

const EVENTS_OF_PRINCIPAL = {
  all: statement(principalEventsText('all')),
  one: statement(principalEventsText('one')),
  some: statement(principalEventsText('some')),
};

/**
 * A page of a principal's events as their kept answer texts, newest first: of the reference's type groups `groups`
 * (`type_group` of migration 088; all when empty or all of `groupCount`).
 */
export async function getPrincipalEventTexts(
  db: Knex,
  principal: string,
  groups: number[],
  groupCount: number,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; texts: string[] }> {
  const distinct = [...new Set(groups)];
  const values: unknown[] = [principal, page.limit, page.offset];
  let rows: Array<TipColumns & { json: string | null }>;
  if (distinct.length === 0 || distinct.length === groupCount) rows = await query(db, EVENTS_OF_PRINCIPAL.all, values);
  else if (distinct.length === 1) rows = await query(db, EVENTS_OF_PRINCIPAL.one, [...values, distinct[0]]);
  else rows = await query(db, EVENTS_OF_PRINCIPAL.some, [...values, distinct]);
  return { tip: tipOf(rows[0]!), texts: rows.flatMap((r) => (r.json === null ? [] : [r.json])) };
}

/** The answer of `/extended/v1/tx/events`: the page's kept texts spliced unparsed. */
export function toEventPageJson(page: { limit: number; offset: number }, texts: readonly string[]): string {
  const head = JSON.stringify({ limit: page.limit, offset: page.offset });
  return `${head.slice(0, -1)},"events":[${texts.join(',')}]}`;
}
