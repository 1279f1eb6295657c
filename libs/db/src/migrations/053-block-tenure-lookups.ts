import type { Knex } from 'knex';

/**
 * The canonical blocks of a Nakamoto tenure, by height: `/extended/v2/block-tenures/{tenure_height}/blocks` finds the
 * tenure's lowest and highest blocks with two probes and pages the height range between them. Index only.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX blocks_canonical_tenure ON blocks (tenure_height, block_height) WHERE canonical');
  await knex.raw(`COMMENT ON INDEX blocks_canonical_tenure IS 'Canonical blocks of a tenure, by height'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX blocks_canonical_tenure');
}
