import type { Knex } from 'knex';
import { runPrepared } from '../write-statements';
import { EFFECTIVE_EVENTS_SQL } from './effective-events';

/** The NFT mints, transfers and burns of block `$1`, each with the owner it leaves (none after a burn). */
const ADD_NFT_BLOCK_SQL = `WITH ev AS (${EFFECTIVE_EVENTS_SQL})
     INSERT INTO nft_owner_changes (asset_identifier, value_hex, block_height, event_index, index_block_hash, tx_id, owner)
     SELECT asset_identifier, value_hex, block_height, event_index, index_block_hash, tx_id,
            CASE WHEN type = 'nft_burn_event' THEN NULL ELSE recipient END
     FROM ev
     WHERE type IN ('nft_mint_event', 'nft_transfer_event', 'nft_burn_event')
       AND asset_identifier IS NOT NULL AND value_hex IS NOT NULL
     RETURNING asset_identifier, value_hex`;

/**
 * Sets `nft_holdings` (migration 092) of the given values from their newest `nft_owner_changes` row, or deletes them
 * when none is left or the newest is a burn; rows that would not change are not written.
 */
const REFRESH_HOLDINGS_SQL = `WITH keys AS (
       SELECT DISTINCT * FROM unnest($1::text[], $2::text[]) AS k(asset_identifier, value_hex)
     ),
     newest AS (
       SELECT k.asset_identifier, k.value_hex, n.owner, n.block_height, n.event_index
       FROM keys k
       LEFT JOIN LATERAL (
         SELECT c.owner, c.block_height, c.event_index FROM nft_owner_changes c
         WHERE c.asset_identifier = k.asset_identifier AND c.value_hex = k.value_hex
         ORDER BY c.block_height DESC, c.event_index DESC LIMIT 1
       ) n ON true
     ),
     deleted AS (
       DELETE FROM nft_holdings h USING newest n
       WHERE n.owner IS NULL AND h.asset_identifier = n.asset_identifier AND h.value_hex = n.value_hex
       RETURNING 1
     ),
     upserted AS (
       INSERT INTO nft_holdings AS h (asset_identifier, value_hex, owner, block_height, event_index)
       SELECT asset_identifier, value_hex, owner, block_height, event_index FROM newest WHERE owner IS NOT NULL
       ON CONFLICT (asset_identifier, value_hex) DO UPDATE SET owner = excluded.owner,
         block_height = excluded.block_height, event_index = excluded.event_index
       WHERE (h.owner, h.block_height, h.event_index) IS DISTINCT FROM (excluded.owner, excluded.block_height, excluded.event_index)
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM deleted) AS deleted, (SELECT count(*) FROM upserted) AS upserted`;

export interface NftKey {
  asset_identifier: string;
  value_hex: string;
}

/** Adds block `$1`'s NFT owner rows; returns the values they touch. */
export async function addNftBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<NftKey[]> {
  return runPrepared<NftKey & Record<string, unknown>>(trx, ADD_NFT_BLOCK_SQL, [indexBlockHash]);
}

/** Deletes the blocks' NFT owner rows; returns the values they touched. */
export async function removeNftBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<NftKey[]> {
  return runPrepared<NftKey & Record<string, unknown>>(
    trx,
    'DELETE FROM nft_owner_changes WHERE index_block_hash = ANY($1::text[]) RETURNING asset_identifier, value_hex',
    [blockHashes],
  );
}

/** Brings `nft_holdings` in line with the owner rows for `keys` (after every block of a batch is added or removed). */
export async function refreshNftHoldings(trx: Knex.Transaction, keys: readonly NftKey[]): Promise<void> {
  if (keys.length === 0) return;
  await runPrepared(trx, REFRESH_HOLDINGS_SQL, [keys.map((k) => k.asset_identifier), keys.map((k) => k.value_hex)]);
}
