import type { Knex } from 'knex';
import { query, statement, type Statement } from '../../datastore/read-statement';
import type { DbPoxUnlockHeights, DbRosettaLock, RosettaBlockLookup } from './rosetta-block';

/**
 * An account's STX at a canonical block: its running totals after its last change at or below the block (received by
 * transfers and mints, sent by transfers and burns, fees paid as origin or sponsor, matured miner rewards: the
 * accounts read model `stx_balance_changes` the indexer writes from the same committed canonical rows the block
 * operations come from, in the block's own transaction), its latest lock, and its last nonce as origin.
 */
export interface DbRosettaBalance extends DbPoxUnlockHeights {
  index_block_hash: string;
  block_height: number;
  burn_block_height: number;
  received: string;
  sent: string;
  fees: string;
  rewards: string;
  last_lock: DbRosettaLock | null;
  last_nonce: string | null;
}

/**
 * Three index probes whatever the account's history and the block's age: its newest `stx_balance_changes` row at or
 * below the block (primary key), its latest lock event (`events_stx_lock_address`) and its last transaction as origin
 * (`txs_rosetta_sender_height`, migration 026: origin nonces rise along the canonical chain, so the last
 * transaction's nonce is the highest).
 */
function balanceStatement(lookup: string): Statement {
  return statement(
    `SELECT b.index_block_hash, b.block_height, b.burn_block_height,
            b.pox_v1_unlock_height, b.pox_v2_unlock_height, b.pox_v3_unlock_height,
            coalesce(s.total_received, 0)::text AS received,
            coalesce(s.total_sent, 0)::text AS sent,
            coalesce(s.total_fees_sent, 0)::text AS fees,
            coalesce(s.total_miner_rewards_received, 0)::text AS rewards,
            (SELECT json_build_object('locked_amount', l.locked_amount::text, 'unlock_height', l.unlock_height::text,
                                      'contract_identifier', l.contract_identifier)
             FROM events l
             WHERE l.locked_address = $1 AND l.type = 'stx_lock_event' AND l.canonical AND l.committed
               AND l.block_height <= b.block_height
             ORDER BY l.block_height DESC, l.event_index DESC LIMIT 1) AS last_lock,
            (SELECT tx.nonce::text FROM txs tx
             WHERE tx.sender_address = $1 AND tx.canonical AND octet_length(tx.raw_tx) > 1
               AND tx.block_height <= b.block_height
             ORDER BY tx.block_height DESC, tx.nonce DESC LIMIT 1) AS last_nonce
     FROM blocks b
     LEFT JOIN LATERAL (SELECT c.total_received, c.total_sent, c.total_fees_sent, c.total_miner_rewards_received
                        FROM stx_balance_changes c
                        WHERE c.principal = $1 AND c.block_height <= b.block_height
                        ORDER BY c.block_height DESC LIMIT 1) s ON true
     WHERE b.canonical AND ${lookup}`,
  );
}

const BY_HEIGHT = balanceStatement('b.block_height = $2');
const BY_HASH = balanceStatement('b.index_block_hash = $2');
const AT_TIP = balanceStatement('b.index_block_hash = (SELECT t.index_block_hash FROM chain_tip t LIMIT 1) AND $2::int IS NULL');

/** `address`'s balance parts at the canonical block of `lookup`, or null when there is no such block. */
export async function getRosettaBalance(db: Knex, address: string, lookup: RosettaBlockLookup): Promise<DbRosettaBalance | null> {
  const [s, key] = 'height' in lookup ? [BY_HEIGHT, lookup.height] : 'hash' in lookup ? [BY_HASH, lookup.hash] : [AT_TIP, null];
  const [row] = await query<DbRosettaBalance>(db, s, [address, key]);
  return row ?? null;
}
