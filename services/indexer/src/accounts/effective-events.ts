/**
 * The events of one stored block that carry an effect (reference/node-events.md): committed, and not of a transaction
 * that failed (an event whose transaction the block does not list counts, as the node sends it). `$1` is the block.
 */
export const EFFECTIVE_EVENTS_SQL = `SELECT e.*
       FROM events e
       LEFT JOIN txs t ON t.tx_id = e.tx_id AND t.index_block_hash = e.index_block_hash
       WHERE e.index_block_hash = $1 AND e.committed AND coalesce(t.status, 'success') = 'success'`;
