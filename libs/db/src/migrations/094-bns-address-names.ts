import type { Knex } from 'knex';
import { ADDRESSES_HOLDING_NAMES_SQL, TIP_HEIGHT_SQL, upsertAddressNamesSql } from '../bns-address-names';
import { bytewiseText } from './bns-bytewise-text';

/**
 * `bns_address_names` (issue 22, ADR 0034): each address's answer to `/v1/addresses/stacks/{address}` kept as JSON
 * text, with the tip heights over which it holds (see `bns-address-names.ts`). The lookup reads one row by key instead
 * of two index ranges of the current-state tables turned into JSON per request (60 rows for an address of the
 * benchmark: about 90 µs of PostgreSQL CPU a lookup). `up` fills it from the current-state tables at the tip.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bns_address_names', (t) => {
    t.comment('What /v1/addresses/stacks/{address} answers for each address that holds or held a name, kept by the indexer');
    t.text('address').primary().comment('The address (Stacks form)');
    t.text('names')
      .notNullable()
      .comment('JSON array of the names that resolve and the subdomains it owns, in byte order, as the answer carries it');
    t.bigInteger('valid_from')
      .notNullable()
      .comment('Lowest tip height at which names holds (one past the last expiry it leaves out)');
    t.bigInteger('valid_until')
      .notNullable()
      .comment('Highest tip height at which names holds (the first expiry among the names it lists)');
  });
  await bytewiseText(knex, 'bns_address_names');
  await knex.raw('CREATE INDEX bns_address_names_valid_until ON bns_address_names (valid_until)');
  await knex.raw(`COMMENT ON INDEX bns_address_names_valid_until IS 'Rows the rising tip leaves (an expiry passed)'`);
  await knex.raw('CREATE INDEX bns_address_names_valid_from ON bns_address_names (valid_from) WHERE valid_from > 0');
  await knex.raw(`COMMENT ON INDEX bns_address_names_valid_from IS 'Rows a reorg that lowers the tip leaves (an expiry undone)'`);
  await knex.raw(upsertAddressNamesSql(ADDRESSES_HOLDING_NAMES_SQL, TIP_HEIGHT_SQL));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bns_address_names');
}
