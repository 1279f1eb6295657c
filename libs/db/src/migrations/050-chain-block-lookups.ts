import type { Knex } from 'knex';

/**
 * Lookups of the chain family's block and transaction lists (issue 24). Indexes only.
 * - A burn block's canonical Stacks blocks, by burn height or burn hash, highest first: `/extended/v1/block/by_burn_block_*`,
 *   the burn-block read model's refresh, `/extended/v2/burn-blocks/{h}/blocks`.
 * - The canonical block at or before a block time: `/extended/v2/blocks/by-block-time/{ts}`.
 * - Canonical transactions in the reference API's list order (height, microblock sequence with anchored ones last,
 *   position), all of them and by type, with the keys of the rows (a page at any offset is an index-only walk):
 *   `/extended/v1/tx` pages without reading the whole table.
 */
const INDEXES: Array<[string, string, string]> = [
  [
    'blocks_canonical_burn_height',
    'ON blocks (burn_block_height, block_height) WHERE canonical',
    'Canonical Stacks blocks of a burn block (by burn height)',
  ],
  [
    'blocks_canonical_burn_hash',
    'ON blocks (burn_block_hash, block_height) WHERE canonical',
    'Canonical Stacks blocks of a burn block (by burn block hash)',
  ],
  [
    'blocks_canonical_block_time',
    'ON blocks ((coalesce(nullif(block_time, 0), burn_block_time)), block_height) WHERE canonical',
    'The canonical block at or before a time (block time, or burn block time before Nakamoto)',
  ],
  [
    'txs_canonical_order',
    'ON txs (block_height, (coalesce(microblock_sequence, 2147483647)), tx_index) INCLUDE (tx_id, index_block_hash) WHERE canonical',
    'Canonical transactions in list order',
  ],
  [
    'txs_canonical_type_order',
    'ON txs (type_id, block_height, (coalesce(microblock_sequence, 2147483647)), tx_index) INCLUDE (tx_id, index_block_hash) WHERE canonical',
    'Canonical transactions of a type in list order',
  ],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, on, comment] of INDEXES) {
    await knex.raw(`CREATE INDEX ${name} ${on}`);
    await knex.raw(`COMMENT ON INDEX ${name} IS '${comment}'`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`DROP INDEX ${name}`);
}
