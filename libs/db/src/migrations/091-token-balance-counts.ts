import type { Knex } from 'knex';
import { createStatementTriggers, dropStatementTriggers } from './statement-triggers';

/**
 * How many token kinds each principal has in `token_balances`, kept as that table changes: the `total` of
 * `/extended/v2/addresses/{p}/balances/ft` (every FT it ever held) and of `/extended/v3/principals/{p}/balances/ft`
 * (those with a positive balance) read one row here instead of counting the principal's rows per request (a count
 * that grows with its token kinds: 1,000 on the bench principal). Kept by statement-level triggers on
 * `token_balances`, as migrations 085, 086 and 090 keep the mempool's (ADR 0028): the indexer changes
 * `token_balances` only by setting touched keys again from their newest change row in the block's transaction (a
 * block joining or leaving the canonical chain, a reorg, an orphaned microblock stream's anchored block), so the
 * counts follow every one of those in the same transaction. A principal's row goes when its last kind does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('token_balance_counts', (t) => {
    t.comment('Per principal and kind: its rows of token_balances, and those with a positive balance (kept by triggers)');
    t.specificType('principal', 'text COLLATE "C"').notNullable().comment('Standard or contract principal');
    t.specificType('kind', 'text COLLATE "C"').notNullable().comment('ft or nft, as token_balances.kind');
    t.integer('kinds').notNullable().comment('Assets of that kind it ever held: its rows of token_balances');
    t.integer('held').notNullable().comment('Of those, assets with a positive balance (FT) or at least one value held (NFT)');
    t.primary(['principal', 'kind']);
  });
  await knex.raw('CREATE INDEX token_balance_counts_empty ON token_balance_counts (principal) WHERE kinds = 0');
  await knex.raw(`COMMENT ON INDEX token_balance_counts_empty IS 'Rows whose last kind left, deleted by the same trigger'`);
  const sources = {
    insert: 'SELECT 1 AS sign, n.principal, n.kind, n.balance FROM new_rows n',
    delete: 'SELECT -1 AS sign, o.principal, o.kind, o.balance FROM old_rows o',
    update:
      'SELECT -1 AS sign, o.principal, o.kind, o.balance FROM old_rows o UNION ALL SELECT 1, n.principal, n.kind, n.balance FROM new_rows n',
  };
  await createStatementTriggers(
    knex,
    'token_balances',
    'token_balance_counts',
    (op) => `INSERT INTO token_balance_counts AS t (principal, kind, kinds, held)
      ${contributions(sources[op])}
      ON CONFLICT (principal, kind) DO UPDATE SET kinds = t.kinds + excluded.kinds, held = t.held + excluded.held;
    DELETE FROM token_balance_counts WHERE kinds = 0;`,
  );
  await knex.raw(
    `INSERT INTO token_balance_counts (principal, kind, kinds, held)
     ${contributions('SELECT 1 AS sign, b.principal, b.kind, b.balance FROM token_balances b')}`,
  );
}

/** Rows of `source` (a `sign`: +1 entering, -1 leaving) summed per principal and kind. */
function contributions(source: string): string {
  return `SELECT r.principal, r.kind, sum(r.sign)::integer, sum(CASE WHEN r.balance > 0 THEN r.sign ELSE 0 END)::integer
    FROM (${source}) r
    GROUP BY r.principal, r.kind
    HAVING sum(r.sign) <> 0 OR sum(CASE WHEN r.balance > 0 THEN r.sign ELSE 0 END) <> 0`;
}

export async function down(knex: Knex): Promise<void> {
  await dropStatementTriggers(knex, 'token_balances', 'token_balance_counts');
  await knex.schema.dropTable('token_balance_counts');
}
