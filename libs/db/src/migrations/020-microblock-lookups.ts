import type { Knex } from 'knex';

/**
 * Lookups of microblocks by the block they build on and by the block that confirmed them. The primary key leads with
 * the microblock hash, so without these every block's context query (does its parent have a stream?), every stream
 * decision, every reorg and every tip refresh read the whole table: millions of rows on a Stacks 2.x mainnet.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX microblocks_parent ON microblocks (parent_index_block_hash, microblock_sequence)');
  await knex.raw('CREATE INDEX microblocks_confirmed_by ON microblocks (index_block_hash) WHERE index_block_hash IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX microblocks_confirmed_by');
  await knex.raw('DROP INDEX microblocks_parent');
}
