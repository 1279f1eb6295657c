import type { Knex } from 'knex';

/**
 * A version number bumped by a trigger on every change to gateway.api_keys. Each gateway process polls it
 * (every second by default) and drops its key cache when it moves, so a revocation reaches every replica
 * within seconds, whoever made the change (the CLI or plain SQL).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table gateway.api_key_version (
      id boolean primary key default true check (id),
      version bigint not null default 0,
      changed_at timestamptz not null default now()
    );
    comment on table gateway.api_key_version is 'One row: bumped on every change to gateway.api_keys; gateways poll it to drop their key caches';
    comment on column gateway.api_key_version.id is 'Always true: the table has exactly one row';
    comment on column gateway.api_key_version.version is 'Incremented by the trigger on each statement changing api_keys';
    comment on column gateway.api_key_version.changed_at is 'Time of the last change';
    insert into gateway.api_key_version default values;
    create function gateway.bump_api_key_version() returns trigger language plpgsql as $$
    begin
      update gateway.api_key_version set version = version + 1, changed_at = now();
      return null;
    end $$;
    create trigger api_keys_bump_version after insert or update or delete or truncate on gateway.api_keys
      for each statement execute function gateway.bump_api_key_version();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger api_keys_bump_version on gateway.api_keys;
    drop function gateway.bump_api_key_version();
    drop table gateway.api_key_version;
  `);
}
