import type { Knex } from 'knex';

/** Attachments (BNS zonefiles) from /attachments/new, kept for the BNS read models. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('attachments', (t) => {
    t.comment('Attachments as the node sent them');
    t.text('content_hash').notNullable().comment('Hash of the content (0x hex)');
    t.integer('attachment_index').notNullable().comment('Attachment index');
    t.text('tx_id').notNullable().comment('Transaction that announced it');
    t.text('index_block_hash').notNullable().comment('Block of that transaction');
    t.integer('block_height').notNullable().comment('Its height');
    t.text('contract_id').notNullable().comment('Contract (the BNS contract for zonefiles)');
    t.text('metadata').notNullable().comment('Clarity tuple {name, namespace, op, tx-sender} (hex)');
    t.binary('content').notNullable().comment('The attached file');
    t.primary(['content_hash', 'tx_id', 'index_block_hash', 'attachment_index']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('attachments');
}
