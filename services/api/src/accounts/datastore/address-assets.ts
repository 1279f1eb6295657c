import type { Knex } from 'knex';
import type { DbChainTip, DbEvent } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';

/** The event types that move an asset (STX, FT, NFT), as stored. */
export const ASSET_EVENT_TYPES = `('stx_transfer_event', 'stx_mint_event', 'stx_burn_event', 'ft_transfer_event',
  'ft_mint_event', 'ft_burn_event', 'nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`;

/** The `events` columns of a `DbEvent`, read from `alias`. */
export function eventSelect(alias: string): string {
  return [
    'index_block_hash',
    'event_index',
    'tx_id',
    'tx_index',
    'block_height',
    'type',
    'committed',
    'asset_identifier',
    'sender',
    'recipient',
    'amount',
    'memo',
    'value_hex',
    'value_repr',
    'contract_identifier',
    'topic',
    'locked_amount',
    'unlock_height',
    'locked_address',
    'canonical',
  ]
    .map((c) => `${alias}.${c}`)
    .join(', ');
}

/**
 * The three ways an event concerns a principal (`$1`) up to a height (`r.height`), each a range of one partial index
 * (migrations 025 and 045), disjoint: as sender of an asset event, as its recipient when not also its sender, and as
 * the address of an STX lock. `limited` caps each branch at the rows a page can need (`$2 + $3`).
 */
function branches(columns: string, limited: boolean): string[] {
  const tail = limited ? 'ORDER BY e.block_height DESC, e.event_index DESC LIMIT $2::integer + $3::integer' : '';
  const common = 'e.canonical AND e.committed AND e.block_height <= r.height';
  return [
    `SELECT ${columns} FROM events e WHERE ${common} AND e.type IN ${ASSET_EVENT_TYPES} AND e.sender = $1 ${tail}`,
    `SELECT ${columns} FROM events e WHERE ${common} AND e.type IN ${ASSET_EVENT_TYPES} AND e.recipient = $1
       AND e.sender IS DISTINCT FROM $1 ${tail}`,
    `SELECT ${columns} FROM events e WHERE ${common} AND e.type = 'stx_lock_event' AND e.locked_address = $1 ${tail}`,
  ];
}

/**
 * `/extended/v1/address/{principal}/assets` (`$1` principal, `$2` limit, `$3` offset, `$4` height or null for the
 * tip): the principal's committed canonical asset events and STX locks up to the height (capped at the tip), newest
 * first, with their number, in one statement. The page merges the three index ranges, each cut at `limit + offset`.
 */
const ADDRESS_ASSETS = statement(
  `SELECT ${TIP_SELECT}, r.height AS at_height, c.total, ${eventSelect('p')}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (SELECT least(coalesce($4::integer, tip.block_height), tip.block_height) AS height) r ON true
   CROSS JOIN LATERAL (
     SELECT ${branches('count(*)', false)
       .map((b) => `(${b})`)
       .join(' + ')} AS total
   ) c
   LEFT JOIN LATERAL (
     SELECT * FROM (${branches(eventSelect('e'), true)
       .map((b) => `(${b})`)
       .join(' UNION ALL ')}) x
     ORDER BY x.block_height DESC, x.event_index DESC LIMIT $2 OFFSET $3
   ) p ON true
   ORDER BY p.block_height DESC, p.event_index DESC`,
);

export interface AddressAssets {
  tip: DbChainTip | null;
  total: number;
  events: DbEvent[];
}

export async function getAddressAssets(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  height: number | null,
): Promise<AddressAssets> {
  type Row = TipColumns & { at_height: number | null; total: string | number } & Partial<DbEvent>;
  const rows = await query<Row>(db, ADDRESS_ASSETS, [principal, page.limit, page.offset, height]);
  const first = rows[0]!;
  return { tip: tipOf(first), total: Number(first.total), events: rowsCarrying<DbEvent>(rows, 'tx_id') };
}
