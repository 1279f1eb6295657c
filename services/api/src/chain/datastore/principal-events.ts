import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, statement } from '../../datastore/read-statement';

/**
 * `/extended/v1/tx/events?address=` as JSON text written by PostgreSQL (issue 24, ADR 0036): the page of a principal's
 * events that `getEvents` reads (the same `principal_events` ranges, migration 088, and the events by primary key),
 * each event written as `toEventResponse` then `JSON.stringify` write it, joined in page order into one row. The api
 * then parses one row instead of 27 columns an event, and writes no JSON of its own (a CPU profile of the page under
 * load: node-postgres' row parsing and `JSON.stringify` were about a third of the api's CPU).
 *
 * An event PostgreSQL cannot write as JavaScript does is counted instead (`js_only`): a Clarity value stored without
 * its repr (the api decodes it), an unlock height beyond 2^53. A page with one is answered by `getEvents` as before.
 * Event types `toEventResponse` does not know are left out, as it leaves them out.
 */

/** `JSON.stringify` of a text value (`to_json` escapes as it does for any text PostgreSQL can hold). */
const str = (v: string) => `to_json(${v})::text`;

/** A stored Clarity value as `{hex, repr}`, null (`js_only`) when the api would decode it. */
const VALUE = `CASE WHEN e.value_hex <> '' AND e.value_repr IS NOT NULL
  THEN '{"hex":' || ${str('e.value_hex')} || ',"repr":' || ${str('e.value_repr')} || '}' END`;

const PARTIES = `'"sender":' || ${str("coalesce(e.sender, '')")} || ',"recipient":' || ${str("coalesce(e.recipient, '')")}`;

const ASSET_KINDS: Array<[string, string, string]> = [
  ['stx_transfer_event', 'stx_asset', 'transfer'],
  ['stx_mint_event', 'stx_asset', 'mint'],
  ['stx_burn_event', 'stx_asset', 'burn'],
  ['ft_transfer_event', 'fungible_token_asset', 'transfer'],
  ['ft_mint_event', 'fungible_token_asset', 'mint'],
  ['ft_burn_event', 'fungible_token_asset', 'burn'],
  ['nft_transfer_event', 'non_fungible_token_asset', 'transfer'],
  ['nft_mint_event', 'non_fungible_token_asset', 'mint'],
  ['nft_burn_event', 'non_fungible_token_asset', 'burn'],
];

/** The event types `toEventResponse` writes. */
const KNOWN_TYPES = ['contract_event', 'stx_lock_event', ...ASSET_KINDS.map(([t]) => t)];

function assetJson(type: string, eventType: string, assetEventType: string): string {
  const head = `'"${eventType}","asset":{"asset_event_type":"${assetEventType}",'`;
  const amount = `',"amount":' || ${str("coalesce(e.amount::text, '0')")}`;
  const body =
    eventType === 'stx_asset'
      ? `${PARTIES} || ${amount}${
          assetEventType === 'transfer'
            ? ` || CASE WHEN coalesce(e.memo, '') IN ('', '0x') THEN '' ELSE ',"memo":' || ${str('e.memo')} END`
            : ''
        }`
      : eventType === 'fungible_token_asset'
        ? `'"asset_id":' || ${str("coalesce(e.asset_identifier, '')")} || ',' || ${PARTIES} || ${amount}`
        : `'"asset_id":' || ${str("coalesce(e.asset_identifier, '')")} || ',' || ${PARTIES} || ',"value":' || ${VALUE}`;
  return `WHEN '${type}' THEN ${head} || ${body} || '}'`;
}

/** An event `e` as `toEventResponse` writes it; null for a type it does not know or a value it must decode. */
const EVENT_JSON = `'{"event_index":' || e.event_index::text || ',"tx_id":' || ${str('e.tx_id')} || ',"event_type":' || CASE e.type
    WHEN 'contract_event' THEN '"smart_contract_log","contract_log":{"contract_id":' || ${str("coalesce(e.contract_identifier, '')")}
      || ',"topic":' || ${str("coalesce(e.topic, '')")} || ',"value":' || ${VALUE} || '}'
    WHEN 'stx_lock_event' THEN '"stx_lock","stx_lock_event":{"locked_amount":' || ${str("coalesce(e.locked_amount::text, '0')")}
      || ',"unlock_height":'
      || CASE WHEN coalesce(e.unlock_height, 0) BETWEEN -9007199254740991 AND 9007199254740991
              THEN coalesce(e.unlock_height, 0)::text END
      || ',"locked_address":' || ${str("coalesce(e.locked_address, '')")} || '}'
    ${ASSET_KINDS.map(([t, k, a]) => assetJson(t, k, a)).join('\n    ')}
  END || '}'`;

/** The page's `principal_events` rows (`s`: index_block_hash, event_index, seq), as `principalEventsText` in tx-lists. */
function pageOf(groups: 'all' | 'one' | 'some'): string {
  const seq = groups === 'one' ? 'group_seq' : 'seq';
  const group = (alias: string) => (groups === 'one' ? ` AND ${alias}.type_group = $4::smallint` : '');
  return groups === 'some'
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
}

function principalEventsJsonText(groups: 'all' | 'one' | 'some'): string {
  return `SELECT ${TIP_SELECT}, p.events, p.js_only
   FROM ${FROM_TIP}
   CROSS JOIN LATERAL (
     SELECT string_agg(ev.j, ',' ORDER BY ev.page_seq DESC) AS events,
            count(*) FILTER (WHERE ev.j IS NULL AND ev.type = ANY('{${KNOWN_TYPES.join(',')}}'::text[]))::int AS js_only
     FROM (
       SELECT s.seq AS page_seq, e.type, ${EVENT_JSON} AS j
       FROM (${pageOf(groups)}) s
       CROSS JOIN LATERAL (
         SELECT e.* FROM events e WHERE e.index_block_hash = s.index_block_hash AND e.event_index = s.event_index OFFSET 0
       ) e
     ) ev
   ) p`;
}

const PRINCIPAL_EVENTS_JSON = {
  all: statement(principalEventsJsonText('all')),
  one: statement(principalEventsJsonText('one')),
  some: statement(principalEventsJsonText('some')),
};

/**
 * A page of a principal's events (`groups`: `type_group`s of migration 088, all when empty or every one) as the JSON
 * texts of the answer's `events`, joined by commas; `complete` false when the page must be read by `getEvents`.
 */
export async function getPrincipalEventsJson(
  db: Knex,
  of: { principal: string; groups: number[]; groupCount: number },
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; events: string; complete: boolean }> {
  const groups = [...new Set(of.groups)];
  const all = groups.length === 0 || groups.length === of.groupCount;
  const values: unknown[] = [of.principal, page.limit, page.offset];
  type Row = TipColumns & { events: string | null; js_only: number };
  const [row] = all
    ? await query<Row>(db, PRINCIPAL_EVENTS_JSON.all, values)
    : groups.length === 1
      ? await query<Row>(db, PRINCIPAL_EVENTS_JSON.one, [...values, groups[0]])
      : await query<Row>(db, PRINCIPAL_EVENTS_JSON.some, [...values, groups]);
  return { tip: tipOf(row!), events: row!.events ?? '', complete: row!.js_only === 0 };
}
