import type { Knex } from 'knex';
import type { DbChainTip, DbEvent } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
import { listBounds, listPage } from './numbered-list';

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
 * `/extended/v1/address/{principal}/assets` (`$1` principal, `$2` limit, `$3` offset, `$4` height or null for the
 * tip): the principal's committed canonical asset events and STX locks up to the height (capped at the tip), newest
 * first, with their number, in one statement. They are its rows of `principal_asset_events` (migration 076): the
 * total is an index read, the page one index range at any offset, each event then read by its primary key.
 */
const ADDRESS_ASSETS = statement(
  `SELECT ${TIP_SELECT}, n.hi - n.lo AS total, ${eventSelect('p')}
   FROM ${FROM_TIP}
   ${listBounds('principal_asset_events', 'until', '$4')}
   LEFT JOIN LATERAL (
     SELECT ${eventSelect('e')}, k.seq
     FROM ${listPage('principal_asset_events', 'k')}
     CROSS JOIN LATERAL (
       SELECT ${eventSelect('e')} FROM events e WHERE e.index_block_hash = k.index_block_hash AND e.event_index = k.event_index
       OFFSET 0
     ) e
   ) p ON true
   ORDER BY p.seq DESC`,
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
