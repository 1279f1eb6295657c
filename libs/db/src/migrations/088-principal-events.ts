import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * `principal_events` (issue 24): the events `/extended/v1/tx/events?address=<principal>` lists, one row per
 * (principal, canonical event), numbered, so that a page at any offset is a range of an index instead of a merge of
 * four indexes sorted per request (7,523 buffers for a principal with 50,971 events, first page included).
 *
 * Which events are a principal's, as the reference API's `getTransactionEvents` selects them: STX, FT and NFT
 * transfers, mints and burns it sends or receives, its STX locks (`locked_address`), and the logs of a contract it is
 * (`contract_identifier`); each event once, newest first by height then index in the block.
 *
 * Each row carries `type_group` (the reference's `type` filter: 0 smart_contract_log, 1 stx_lock, 2 stx_asset,
 * 3 fungible_token_asset, 4 non_fungible_token_asset), `seq` (its 1-based place in the principal's list, oldest
 * first, no gaps) and `group_seq` (the same within its group). The total is the newest row's `seq` (one backward
 * probe); a page is a `seq` range (`principal_events_seq`), or a `group_seq` range for one group
 * (`principal_events_group_seq`); several groups (not all) walk the principal's `seq` index, bounded by its rows.
 *
 * Only canonical blocks have rows. The indexer keeps it in the block's transaction
 * (`services/indexer/src/chain/principal-events.ts`): rows of blocks joining the canonical chain are inserted, rows of
 * blocks leaving it deleted, and each principal touched is renumbered from the lowest height changed (only the new
 * block's rows when the chain grows). Events come only from anchored blocks (a microblock's transactions reach
 * `events` through the anchored block that confirms them), so microblock orphaning moves no row here. `up` fills it
 * from the rows already indexed.
 */

/** The event types of each group of the reference's `type` filter, by `type_group`. */
export const EVENT_TYPE_GROUP_IDS: Record<string, number> = {
  smart_contract_log: 0,
  stx_lock: 1,
  stx_asset: 2,
  fungible_token_asset: 3,
  non_fungible_token_asset: 4,
};

const ASSET_TYPES = `'stx_transfer_event', 'stx_mint_event', 'stx_burn_event', 'ft_transfer_event', 'ft_mint_event',
  'ft_burn_event', 'nft_transfer_event', 'nft_mint_event', 'nft_burn_event'`;

/** `type_group` of an event (alias `e`), null for types the filter does not know. */
const TYPE_GROUP = `CASE
    WHEN e.type = 'contract_event' THEN 0
    WHEN e.type = 'stx_lock_event' THEN 1
    WHEN e.type IN ('stx_transfer_event', 'stx_mint_event', 'stx_burn_event') THEN 2
    WHEN e.type IN ('ft_transfer_event', 'ft_mint_event', 'ft_burn_event') THEN 3
    WHEN e.type IN ('nft_transfer_event', 'nft_mint_event', 'nft_burn_event') THEN 4
  END`;

/**
 * The (principal, event) rows of the events `cond` selects (on `e`): each principal an event names under the rule
 * above, once.
 */
export function principalEventRowsSql(cond: string): string {
  return `SELECT DISTINCT v.p AS principal, e.block_height, e.event_index, e.index_block_hash, ${TYPE_GROUP} AS type_group
     FROM events e
     CROSS JOIN LATERAL (VALUES (CASE WHEN e.type IN (${ASSET_TYPES}) THEN e.sender END),
       (CASE WHEN e.type IN (${ASSET_TYPES}) THEN e.recipient END),
       (CASE WHEN e.type = 'stx_lock_event' THEN e.locked_address END),
       (CASE WHEN e.type = 'contract_event' THEN e.contract_identifier END)) v(p)
     WHERE ${cond} AND e.canonical AND v.p IS NOT NULL`;
}

/**
 * The statement that renumbers each principal of `$1` (text[]) from the height at the same place of `$2` (integer[])
 * up: `seq` continues the principal's newest row below that height, `group_seq` the newest row of the same group
 * below it. The rows below the height must be numbered already (a block's new rows are inserted with 0). Rows whose
 * numbers do not change are not written.
 */
export function principalEventsRenumberSql(): string {
  return `WITH per AS (
       SELECT principal, min(height) AS height FROM unnest($1::text[], $2::integer[]) AS p(principal, height)
       GROUP BY principal
     ),
     moved AS (
       SELECT s.principal, s.block_height, s.event_index, s.type_group, per.height,
              b.base + row_number() OVER (PARTITION BY s.principal ORDER BY s.block_height, s.event_index) AS seq,
              row_number() OVER (PARTITION BY s.principal, s.type_group ORDER BY s.block_height, s.event_index) AS group_rn
       FROM per
       CROSS JOIN LATERAL (
         SELECT coalesce((SELECT x.seq FROM principal_events x WHERE x.principal = per.principal AND x.block_height < per.height
                          ORDER BY x.block_height DESC, x.event_index DESC LIMIT 1), 0) AS base
       ) b
       JOIN principal_events s ON s.principal = per.principal AND s.block_height >= per.height
     ),
     group_base AS (
       SELECT g.principal, g.type_group,
              coalesce((SELECT x.group_seq FROM principal_events x
                        WHERE x.principal = g.principal AND x.type_group = g.type_group AND x.block_height < g.height
                        ORDER BY x.group_seq DESC LIMIT 1), 0) AS base
       FROM (SELECT DISTINCT principal, type_group, height FROM moved) g
     )
     UPDATE principal_events s SET seq = m.seq, group_seq = gb.base + m.group_rn
     FROM moved m JOIN group_base gb ON gb.principal = m.principal AND gb.type_group = m.type_group
     WHERE s.principal = m.principal AND s.block_height = m.block_height AND s.event_index = m.event_index
       AND (s.seq <> m.seq OR s.group_seq <> gb.base + m.group_rn)`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('principal_events', (t) => {
    t.comment('Canonical events of each principal as /extended/v1/tx/events?address= lists them, numbered');
    t.text('principal').notNullable().comment('Sender or recipient of an asset event, locked address, or the logging contract');
    t.integer('block_height').notNullable().comment('Height of the event’s block');
    t.integer('event_index').notNullable().comment('Index of the event in its block');
    t.text('index_block_hash').notNullable().comment('The event’s block (rows deleted when it leaves the canonical chain)');
    t.smallint('type_group')
      .notNullable()
      .comment('0 smart_contract_log, 1 stx_lock, 2 stx_asset, 3 fungible_token_asset, 4 non_fungible_token_asset');
    t.integer('seq').notNullable().defaultTo(0).comment('1-based place in the principal’s list, oldest first, no gaps');
    t.integer('group_seq')
      .notNullable()
      .defaultTo(0)
      .comment('1-based place among the principal’s events of the same type_group, oldest first, no gaps');
    t.primary(['principal', 'block_height', 'event_index']);
  });
  await bytewiseText(knex, 'principal_events');
  await knex.raw(
    `INSERT INTO principal_events (principal, block_height, event_index, index_block_hash, type_group, seq, group_seq)
     SELECT r.principal, r.block_height, r.event_index, r.index_block_hash, r.type_group,
            row_number() OVER (PARTITION BY r.principal ORDER BY r.block_height, r.event_index),
            row_number() OVER (PARTITION BY r.principal, r.type_group ORDER BY r.block_height, r.event_index)
     FROM (${principalEventRowsSql('true')}) r`,
  );
  await knex.raw('CREATE INDEX principal_events_seq ON principal_events (principal, seq) INCLUDE (type_group)');
  await knex.raw(`COMMENT ON INDEX principal_events_seq IS 'A page of every type at any offset: a range of seq'`);
  await knex.raw('CREATE INDEX principal_events_group_seq ON principal_events (principal, type_group, group_seq)');
  await knex.raw(`COMMENT ON INDEX principal_events_group_seq IS 'A page of one type group at any offset: a range of group_seq'`);
  await knex.raw('CREATE INDEX principal_events_block ON principal_events (index_block_hash)');
  await knex.raw(`COMMENT ON INDEX principal_events_block IS 'The rows of a block leaving the canonical chain'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('principal_events');
}
