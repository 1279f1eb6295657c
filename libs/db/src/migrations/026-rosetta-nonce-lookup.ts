import type { Knex } from 'knex';

/**
 * Lookup of Rosetta's `/account/balance` `sequence_number`: an address's last canonical transaction as origin at or
 * below a height, one index probe whatever its history and however old the height (`rosetta-cli check:data` asks for
 * every account at every block it syncs). Burnchain operations (`raw_tx` 0x00) carry no nonce and are left out.
 * Index only: no column changes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX txs_rosetta_sender_height ON txs (sender_address, block_height DESC, nonce DESC)
     WHERE canonical AND octet_length(raw_tx) > 1`,
  );
  await knex.raw(
    `COMMENT ON INDEX txs_rosetta_sender_height IS 'Rosetta: last canonical origin nonce of an address at or below a height'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX txs_rosetta_sender_height');
}
