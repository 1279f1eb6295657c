import type { Knex } from 'knex';

/** The PoX contract unlock heights a node sends with each block (the status endpoint shows the tip's). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('blocks', (t) => {
    t.integer('pox_v1_unlock_height').nullable().comment('Burn height at which pox-1 locks were released, as the node sent it');
    t.integer('pox_v2_unlock_height').nullable().comment('Burn height at which pox-2 locks were released, as the node sent it');
    t.integer('pox_v3_unlock_height').nullable().comment('Burn height at which pox-3 locks were released, as the node sent it');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('blocks', (t) => {
    t.dropColumn('pox_v1_unlock_height');
    t.dropColumn('pox_v2_unlock_height');
    t.dropColumn('pox_v3_unlock_height');
  });
}
