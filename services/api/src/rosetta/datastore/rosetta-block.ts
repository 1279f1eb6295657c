import type { Knex } from 'knex';
import { query, statement, type Statement } from '../../datastore/read-statement';

/** A transaction of a block as the Rosetta mappers read it (amounts as integer strings). */
export interface DbRosettaTx {
  tx_id: string;
  tx_index: number;
  type_id: string;
  status: string;
  sender_address: string;
  sponsor_address: string | null;
  sponsored: boolean;
  nonce: string;
  fee_rate: string;
  payload: Record<string, unknown>;
  contract_id: string | null;
}

/** A committed STX event of a block. */
export interface DbRosettaStxEvent {
  tx_id: string;
  event_index: number;
  type: 'stx_transfer_event' | 'stx_mint_event' | 'stx_burn_event' | 'stx_lock_event';
  sender: string | null;
  recipient: string | null;
  amount: string | null;
  memo: string | null;
  locked_address: string | null;
  locked_amount: string | null;
  unlock_height: string | null;
  contract_identifier: string | null;
  /** For a lock event: the lock of the same address it replaces (the latest one before it), if any. */
  prev_lock: DbRosettaLock | null;
}

/** An STX lock as recorded by its event: what is locked, until which burn height, by which PoX contract. */
export interface DbRosettaLock {
  locked_amount: string;
  unlock_height: string;
  contract_identifier: string | null;
}

/** A lock that may expire in a block: an address's latest lock before it. */
interface DbRosettaExpiringLock extends DbRosettaLock {
  locked_address: string;
}

export interface DbRosettaMinerReward {
  reward_index: number;
  recipient: string;
  amount: string;
}

/** The PoX unlock heights the node sent with a block. */
export interface DbPoxUnlockHeights {
  pox_v1_unlock_height: number | null;
  pox_v2_unlock_height: number | null;
  pox_v3_unlock_height: number | null;
}

export interface DbRosettaBlock extends DbPoxUnlockHeights {
  index_block_hash: string;
  block_height: number;
  parent_index_block_hash: string;
  burn_block_height: number;
  burn_block_time: string;
  block_time: string | null;
  /** The parent block's burn height (null at the genesis block). */
  parent_burn_block_height: number | null;
  genesis_block_height: number;
  txs: DbRosettaTx[];
  events: DbRosettaStxEvent[];
  rewards: DbRosettaMinerReward[];
  /** Latest locks (before this block) of the addresses whose lock could expire at this block's burn height. */
  expiring_locks: DbRosettaExpiringLock[];
}

const LOCK_JSON = (a: string) =>
  `json_build_object('locked_amount', ${a}.locked_amount::text, 'unlock_height', ${a}.unlock_height::text,
                     'contract_identifier', ${a}.contract_identifier)`;

/**
 * The whole block in one statement: its row, its transactions, its committed STX events (each lock with the lock it
 * replaces), its matured miner rewards and the locks that may expire with it. `lookup` is the WHERE on `blocks b`.
 */
function blockStatement(lookup: string): Statement {
  return statement(
    `SELECT b.index_block_hash, b.block_height, b.parent_index_block_hash, b.burn_block_height, b.burn_block_time,
            b.block_time, b.pox_v1_unlock_height, b.pox_v2_unlock_height, b.pox_v3_unlock_height,
            p.burn_block_height AS parent_burn_block_height,
            (SELECT g.block_height FROM blocks g WHERE g.canonical ORDER BY g.block_height ASC LIMIT 1) AS genesis_block_height,
            (SELECT coalesce(json_agg(json_build_object(
                       'tx_id', tx.tx_id, 'tx_index', tx.tx_index, 'type_id', tx.type_id, 'status', tx.status,
                       'sender_address', tx.sender_address, 'sponsor_address', tx.sponsor_address,
                       'sponsored', tx.sponsored, 'nonce', tx.nonce::text, 'fee_rate', tx.fee_rate::text,
                       'payload', tx.payload, 'contract_id', tx.contract_id) ORDER BY tx.tx_index), '[]'::json)
             FROM txs tx WHERE tx.index_block_hash = b.index_block_hash) AS txs,
            (SELECT coalesce(json_agg(json_build_object(
                       'tx_id', e.tx_id, 'event_index', e.event_index, 'type', e.type, 'sender', e.sender,
                       'recipient', e.recipient, 'amount', e.amount::text, 'memo', e.memo,
                       'locked_address', e.locked_address, 'locked_amount', e.locked_amount::text,
                       'unlock_height', e.unlock_height::text, 'contract_identifier', e.contract_identifier,
                       'prev_lock', (SELECT ${LOCK_JSON('l')} FROM events l
                                     WHERE e.type = 'stx_lock_event' AND l.type = 'stx_lock_event' AND l.canonical
                                       AND l.committed AND l.locked_address = e.locked_address
                                       AND (l.block_height < e.block_height
                                            OR (l.block_height = e.block_height AND l.event_index < e.event_index))
                                     ORDER BY l.block_height DESC, l.event_index DESC LIMIT 1)
                     ) ORDER BY e.event_index), '[]'::json)
             FROM events e
             WHERE e.index_block_hash = b.index_block_hash AND e.committed
               AND e.type IN ('stx_transfer_event', 'stx_mint_event', 'stx_burn_event', 'stx_lock_event')) AS events,
            (SELECT coalesce(json_agg(json_build_object(
                       'reward_index', r.reward_index, 'recipient', r.recipient,
                       'amount', (r.coinbase_amount + r.tx_fees_anchored + r.tx_fees_streamed_confirmed
                                  + r.tx_fees_streamed_produced)::text) ORDER BY r.reward_index), '[]'::json)
             FROM miner_rewards r WHERE r.index_block_hash = b.index_block_hash) AS rewards,
            (SELECT coalesce(json_agg(json_build_object('locked_address', x.locked_address, 'locked_amount',
                       x.locked_amount::text, 'unlock_height', x.unlock_height::text,
                       'contract_identifier', x.contract_identifier)), '[]'::json)
             FROM (SELECT DISTINCT ON (c.locked_address) l.locked_address, l.locked_amount, l.unlock_height,
                          l.contract_identifier
                   FROM (-- locks whose unlock height falls in (parent's burn height, this burn height]: an index range
                         SELECT e.locked_address FROM events e
                         WHERE e.type = 'stx_lock_event' AND e.canonical AND e.committed
                           AND e.unlock_height > p.burn_block_height AND e.unlock_height <= b.burn_block_height
                           AND e.block_height < b.block_height
                         UNION ALL
                         -- every lock, at the one block where a PoX version's retirement height is crossed (the
                         -- condition on the block alone is a one-time filter: the scan runs only then)
                         SELECT e.locked_address FROM events e
                         WHERE ((b.pox_v1_unlock_height IS NOT NULL AND p.burn_block_height < b.pox_v1_unlock_height
                                 AND b.burn_block_height >= b.pox_v1_unlock_height)
                                OR (b.pox_v2_unlock_height IS NOT NULL AND p.burn_block_height < b.pox_v2_unlock_height
                                    AND b.burn_block_height >= b.pox_v2_unlock_height)
                                OR (b.pox_v3_unlock_height IS NOT NULL AND p.burn_block_height < b.pox_v3_unlock_height
                                    AND b.burn_block_height >= b.pox_v3_unlock_height))
                           AND e.type = 'stx_lock_event' AND e.canonical AND e.committed
                           AND e.block_height < b.block_height) c
                   CROSS JOIN LATERAL (SELECT * FROM events l
                                       WHERE l.type = 'stx_lock_event' AND l.canonical AND l.committed
                                         AND l.locked_address = c.locked_address AND l.block_height < b.block_height
                                       ORDER BY l.block_height DESC, l.event_index DESC LIMIT 1) l
                   WHERE p.burn_block_height IS NOT NULL
                   ORDER BY c.locked_address) x) AS expiring_locks
     FROM blocks b
     LEFT JOIN blocks p ON p.index_block_hash = b.parent_index_block_hash
     WHERE b.canonical AND ${lookup}`,
  );
}

const BY_HEIGHT = blockStatement('b.block_height = $1');
const BY_HASH = blockStatement('b.index_block_hash = $1');
const AT_TIP = blockStatement('b.index_block_hash = (SELECT t.index_block_hash FROM chain_tip t LIMIT 1)');

/** Which block: by height, by index block hash, or the tip. */
export type RosettaBlockLookup = { height: number } | { hash: string } | { tip: true };

/** The canonical block of `lookup` with everything its Rosetta operations need, or null. */
export async function getRosettaBlock(db: Knex, lookup: RosettaBlockLookup): Promise<DbRosettaBlock | null> {
  const [s, values] =
    'height' in lookup ? [BY_HEIGHT, [lookup.height]] : 'hash' in lookup ? [BY_HASH, [lookup.hash]] : [AT_TIP, []];
  const [row] = await query<DbRosettaBlock>(db, s, values);
  return row ?? null;
}
