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
       AND asset_identifier IS NOT NULL AND value_hex IS NOT NULL`;

export async function addNftBlock(trx: Knex.Transaction, indexBlockHash: string): Promise<void> {
  await runPrepared(trx, ADD_NFT_BLOCK_SQL, [indexBlockHash]);
}

export async function removeNftBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  await runPrepared(trx, 'DELETE FROM nft_owner_changes WHERE index_block_hash = ANY($1::text[])', [blockHashes]);
}
