import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * BNS zonefiles by hash (ADR 0022): the BNS contract's attachments (`/attachments/new`) and the genesis import's
 * zonefiles. Content-addressed, so a block leaving the canonical chain takes nothing from here: which hash a name points
 * to is in `bns_names`, and a zonefile arriving after its transaction (or never) is simply found (or not) by hash.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bns_zonefiles', (t) => {
    t.comment('BNS zonefiles by their hash');
    t.text('zonefile_hash').primary().comment('hash160 of the zonefile (40 hex, no 0x)');
    t.text('zonefile').notNullable().comment('The zonefile text');
  });
  await bytewiseText(knex, 'bns_zonefiles');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bns_zonefiles');
}
