import type { Knex } from 'knex';
import { createStatementTriggers, dropStatementTriggers } from './statement-triggers';

/**
 * What each principal's pending transactions would move in STX, kept as the mempool changes: the mempool-aware fields
 * of `/extended/v1/address/{p}/stx`, `/balances` and the v2/v3 STX balances read one row here instead of summing the
 * principal's pending transactions per request (a sum that grows with what the principal has pending: 1,000 pending
 * transfers of one busy address made the v1 balance the slowest of the account reads).
 *
 * The sums follow the reference API's rule: outbound is the amount of the token transfers a principal sends plus the
 * fees it pays (as the origin of an unsponsored transaction or as the sponsor of a sponsored one); inbound the token
 * transfers it receives.
 *
 * Kept by statement-level triggers on `mempool_txs`, in the transaction of the statement that changes it: every way a
 * transaction enters or leaves the pending set (announced, mined, dropped, replaced, back to pending when its block
 * is orphaned) is a row change there, whichever indexer code makes it, so the totals cannot drift from the table.
 * Each statement's changed rows are summed per principal once (a block mining 50 transactions is one upsert), and a
 * principal's row goes when its last pending transaction does (`entries`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mempool_principal_stx', (t) => {
    t.comment('Per principal: what its pending mempool transactions would move in STX (kept by triggers on mempool_txs)');
    t.specificType('principal', 'text COLLATE "C"').primary().comment('Standard or contract principal');
    t.decimal('outbound', 60, 0).notNullable().comment('Token transfers it sends plus fees it pays, micro-STX, pending only');
    t.decimal('inbound', 60, 0).notNullable().comment('Token transfers it receives, micro-STX, pending only');
    t.integer('entries').notNullable().comment('Pending transactions counted here (a row with none is deleted)');
  });
  await knex.raw('CREATE INDEX mempool_principal_stx_empty ON mempool_principal_stx (principal) WHERE entries = 0');
  await knex.raw(
    `COMMENT ON INDEX mempool_principal_stx_empty IS 'Rows whose last pending transaction left, deleted by the same trigger'`,
  );
  const sources = {
    insert: 'SELECT 1 AS sign, n.* FROM new_rows n',
    delete: 'SELECT -1 AS sign, o.* FROM old_rows o',
    update: 'SELECT -1 AS sign, o.* FROM old_rows o UNION ALL SELECT 1, n.* FROM new_rows n',
  };
  await createStatementTriggers(knex, 'mempool_txs', 'mempool_principal_stx', (op) => applyChanges(sources[op]));
  await knex.raw(
    `INSERT INTO mempool_principal_stx (principal, outbound, inbound, entries)
     ${contributions("SELECT 1 AS sign, m.* FROM mempool_txs m WHERE m.status = 'pending'")}`,
  );
}

/**
 * Each pending row of `source` (rows of mempool_txs with a `sign`: +1 entering, -1 leaving) as what it adds to its
 * principals, summed per principal.
 */
function contributions(source: string): string {
  return `SELECT principal, sum(outbound), sum(inbound), sum(entries)::integer FROM (
      SELECT r.sender_address COLLATE "C" AS principal,
             r.sign * ((CASE WHEN r.type_id = 'token_transfer' THEN (r.payload->>'amount')::numeric ELSE 0 END)
                       + (CASE WHEN r.sponsor_address IS NULL THEN r.fee_rate ELSE 0 END)) AS outbound,
             0::numeric AS inbound, r.sign AS entries
      FROM changed r WHERE r.status = 'pending'
      UNION ALL
      SELECT r.sponsor_address COLLATE "C", r.sign * r.fee_rate, 0, r.sign
      FROM changed r WHERE r.status = 'pending' AND r.sponsor_address IS NOT NULL
      UNION ALL
      SELECT (r.payload->>'recipient_address') COLLATE "C", 0, r.sign * (r.payload->>'amount')::numeric, r.sign
      FROM changed r WHERE r.status = 'pending' AND r.type_id = 'token_transfer' AND r.payload->>'recipient_address' IS NOT NULL
    ) c GROUP BY principal`.replace(/FROM changed r/g, `FROM (${source}) r`);
}

/** Adds the changed rows' contributions, then drops the principals left with no pending transaction. */
function applyChanges(source: string): string {
  return `INSERT INTO mempool_principal_stx AS t (principal, outbound, inbound, entries)
      ${contributions(source)}
      ON CONFLICT (principal) DO UPDATE SET outbound = t.outbound + excluded.outbound,
        inbound = t.inbound + excluded.inbound, entries = t.entries + excluded.entries;
    DELETE FROM mempool_principal_stx WHERE entries = 0;`;
}

export async function down(knex: Knex): Promise<void> {
  await dropStatementTriggers(knex, 'mempool_txs', 'mempool_principal_stx');
  await knex.schema.dropTable('mempool_principal_stx');
}
