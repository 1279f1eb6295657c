import type { Knex } from 'knex';
import { createStatementTriggers, dropStatementTriggers } from './statement-triggers';

/**
 * How many pending transactions each principal has under each filter of `/extended/v1/tx/mempool`, kept as the
 * mempool changes: the `total` of a list filtered by `sender_address`, `recipient_address` or `address` reads one row
 * here instead of counting the principal's pending rows per request (a count that grows with what it has pending: an
 * exchange's deposit address or a popular contract can have thousands). Kept by statement-level triggers on
 * `mempool_txs`, as migrations 085 and 086 keep the pending sums and count (ADR 0028): every way a transaction enters or
 * leaves the pending set is a row change there.
 *
 * The counts follow the list's filters: `as_sender` the pending transactions it sends (`sender_address`),
 * `as_recipient` those whose payload names it as `recipient_address`, `as_party` those it sends, receives or whose
 * contract it is (`contract_id`), each transaction once. A principal's row goes when its last pending transaction does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mempool_principal_counts', (t) => {
    t.comment('Per principal: its pending mempool transactions under each filter of the mempool list (kept by triggers)');
    t.specificType('principal', 'text COLLATE "C"').primary().comment('Standard or contract principal');
    t.integer('as_sender').notNullable().comment('Pending transactions whose sender_address it is');
    t.integer('as_recipient').notNullable().comment('Pending transactions whose payload recipient_address it is');
    t.integer('as_party').notNullable().comment('Pending transactions it sends, receives or whose contract_id it is, each once');
  });
  await knex.raw('CREATE INDEX mempool_principal_counts_empty ON mempool_principal_counts (principal) WHERE as_party = 0');
  await knex.raw(
    `COMMENT ON INDEX mempool_principal_counts_empty IS 'Rows whose last pending transaction left, deleted by the same trigger'`,
  );
  const sources = {
    insert: 'SELECT 1 AS sign, n.* FROM new_rows n',
    delete: 'SELECT -1 AS sign, o.* FROM old_rows o',
    update: 'SELECT -1 AS sign, o.* FROM old_rows o UNION ALL SELECT 1, n.* FROM new_rows n',
  };
  await createStatementTriggers(
    knex,
    'mempool_txs',
    'mempool_principal_counts',
    (op) => `INSERT INTO mempool_principal_counts AS t (principal, as_sender, as_recipient, as_party)
      ${contributions(sources[op])}
      ON CONFLICT (principal) DO UPDATE SET as_sender = t.as_sender + excluded.as_sender,
        as_recipient = t.as_recipient + excluded.as_recipient, as_party = t.as_party + excluded.as_party;
    DELETE FROM mempool_principal_counts WHERE as_party = 0;`,
  );
  await knex.raw(
    `INSERT INTO mempool_principal_counts (principal, as_sender, as_recipient, as_party)
     ${contributions('SELECT 1 AS sign, m.* FROM mempool_txs m')}`,
  );
}

/**
 * Each pending row of `source` (rows of mempool_txs with a `sign`: +1 entering, -1 leaving) counted for the principals
 * it names, summed per principal: its sender, the recipient its payload names, its contract (a principal named twice
 * is one party).
 */
function contributions(source: string): string {
  return `SELECT v.principal COLLATE "C", sum(r.sign * v.s)::integer, sum(r.sign * v.rc)::integer, sum(r.sign * v.p)::integer
    FROM (${source}) r
    CROSS JOIN LATERAL (VALUES
      (r.sender_address, 1, 0, 1),
      (r.payload->>'recipient_address', 0, 1, CASE WHEN r.payload->>'recipient_address' IS DISTINCT FROM r.sender_address THEN 1 ELSE 0 END),
      (r.contract_id, 0, 0, CASE WHEN r.contract_id IS DISTINCT FROM r.sender_address
                                  AND r.contract_id IS DISTINCT FROM r.payload->>'recipient_address' THEN 1 ELSE 0 END)
    ) v(principal, s, rc, p)
    WHERE r.status = 'pending' AND v.principal IS NOT NULL AND (v.s + v.rc + v.p) > 0
    GROUP BY v.principal`;
}

export async function down(knex: Knex): Promise<void> {
  await dropStatementTriggers(knex, 'mempool_txs', 'mempool_principal_counts');
  await knex.schema.dropTable('mempool_principal_counts');
}
