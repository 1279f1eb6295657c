import type { Knex } from 'knex';

/** The three row-changing statements a kept summary of `mempool_txs` must follow. */
type TriggerOp = 'insert' | 'delete' | 'update';

/** The transition tables each statement has: `new_rows` for what it wrote, `old_rows` for what it replaced. */
const TRANSITION: Record<TriggerOp, string> = {
  insert: 'NEW TABLE AS new_rows',
  delete: 'OLD TABLE AS old_rows',
  update: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
};

/**
 * Statement-level AFTER triggers `<name>_<op>` on `table`, one plpgsql function each running `body(op)`, which reads the
 * statement's changed rows from `new_rows` / `old_rows` (migrations 085 and 086: summaries kept in the statement's
 * own transaction).
 */
export async function createStatementTriggers(
  knex: Knex,
  table: string,
  name: string,
  body: (op: TriggerOp) => string,
): Promise<void> {
  for (const op of ['insert', 'delete', 'update'] as const) {
    await knex.raw(`CREATE FUNCTION ${name}_on_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${body(op)}
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE TRIGGER ${name}_${op} AFTER ${op.toUpperCase()} ON ${table}
      REFERENCING ${TRANSITION[op]} FOR EACH STATEMENT EXECUTE FUNCTION ${name}_on_${op}()`);
  }
}

/** Drops what `createStatementTriggers` made. */
export async function dropStatementTriggers(knex: Knex, table: string, name: string): Promise<void> {
  for (const op of ['insert', 'delete', 'update'] as const) {
    await knex.raw(`DROP TRIGGER ${name}_${op} ON ${table}`);
    await knex.raw(`DROP FUNCTION ${name}_on_${op}()`);
  }
}
