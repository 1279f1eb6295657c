import type { Knex } from 'knex';
import { query, statement, type Statement } from '../../datastore/read-statement';
import type { DbPoxUnlockHeights, DbRosettaLock, RosettaBlockLookup } from './rosetta-block';

/**
 * An account's STX at a canonical block, from the same committed canonical rows the block operations come from (so
 * the two agree by construction): what it received (transfers in, mints, miner rewards), what it sent (transfers out,
 * burns), the fees it paid (as origin, or as sponsor), its latest lock, and its last nonce as origin.
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

function balanceStatement(lookup: string): Statement {
  return statement(
    `SELECT b.index_block_hash, b.block_height, b.burn_block_height,
            b.pox_v1_unlock_height, b.pox_v2_unlock_height, b.pox_v3_unlock_height,
            (SELECT coalesce(sum(e.amount), 0)::text FROM events e
             WHERE e.recipient = $1 AND e.canonical AND e.committed AND e.block_height <= b.block_height
               AND e.type IN ('stx_transfer_event', 'stx_mint_event')) AS received,
            (SELECT coalesce(sum(e.amount), 0)::text FROM events e
             WHERE e.sender = $1 AND e.canonical AND e.committed AND e.block_height <= b.block_height
               AND e.type IN ('stx_transfer_event', 'stx_burn_event')) AS sent,
            (SELECT coalesce(sum(tx.fee_rate), 0)::text
             FROM address_txs a JOIN txs tx ON tx.tx_id = a.tx_id AND tx.index_block_hash = a.index_block_hash
             WHERE a.address = $1 AND a.block_height <= b.block_height
               AND (CASE WHEN tx.sponsored THEN tx.sponsor_address ELSE tx.sender_address END) = $1) AS fees,
            (SELECT coalesce(sum(r.coinbase_amount + r.tx_fees_anchored + r.tx_fees_streamed_confirmed
                                 + r.tx_fees_streamed_produced), 0)::text
             FROM miner_rewards r WHERE r.recipient = $1 AND r.canonical AND r.block_height <= b.block_height) AS rewards,
            (SELECT json_build_object('locked_amount', l.locked_amount::text, 'unlock_height', l.unlock_height::text,
                                      'contract_identifier', l.contract_identifier)
             FROM events l
             WHERE l.locked_address = $1 AND l.type = 'stx_lock_event' AND l.canonical AND l.committed
               AND l.block_height <= b.block_height
             ORDER BY l.block_height DESC, l.event_index DESC LIMIT 1) AS last_lock,
            (SELECT max(tx.nonce)::text
             FROM address_txs a JOIN txs tx ON tx.tx_id = a.tx_id AND tx.index_block_hash = a.index_block_hash
             WHERE a.address = $1 AND a.block_height <= b.block_height AND tx.sender_address = $1
               AND octet_length(tx.raw_tx) > 1) AS last_nonce
     FROM blocks b
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
