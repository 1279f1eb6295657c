import type { Knex } from 'knex';

/** The API keys table: a SHA-256 of each key and a display prefix, never the key. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('gateway').createTable('api_keys', (t) => {
    t.comment('API keys for x-api-key. Only a SHA-256 of each key and its display prefix are stored.');
    t.bigIncrements('id').primary().comment('Key id; the CLI revokes by id or prefix, logs name keys by id');
    t.string('prefix', 16)
      .notNullable()
      .index()
      .comment('First 12 characters of the key (bda_ + 8), shown in listings; not secret');
    t.binary('key_hash').notNullable().unique().comment('SHA-256 of the whole key, compared in constant time');
    t.text('owner').notNullable().comment('Account on the developer platform that owns the key');
    t.integer('rate_limit_per_minute')
      .nullable()
      .checkPositive()
      .comment('Custom requests a minute (contracts above the keyed default); null = the keyed default');
    t.integer('burst_per_second')
      .nullable()
      .checkPositive()
      .comment('Custom burst limit (requests a second); null = the default, scaled for custom limits');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When the key was created');
    t.timestamp('revoked_at', { useTz: true }).nullable().comment('When the key was revoked; null = active');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('gateway').dropTable('api_keys');
}
